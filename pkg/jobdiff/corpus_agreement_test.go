package jobdiff

import (
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/lint"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	lintcorpus "github.com/kubectl-indexed/kubectl-indexed/test/lint"
)

const corpusDir = "../../test/lint/corpus"

// TestLintAndDiffAgreeOnTheCorpus runs lint and diff's policy warnings over every Job (and
// CronJob jobTemplate) of the lint corpus: both derive the prepare-db mode and the backoffLimit
// next to backoffLimitPerIndex from pkg/jobpolicy, so they must report them on the same
// manifests, with the same words.
func TestLintAndDiffAgreeOnTheCorpus(t *testing.T) {
	files, err := lintcorpus.Files(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	compared, prepareDB, beside := 0, 0, 0
	for _, f := range files {
		docs, err := source.Read([]string{filepath.Join(corpusDir, f)}, source.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range docs {
			d := &docs[i]
			if d.Err != nil || d.APIVersion() != "batch/v1" {
				continue
			}
			var job batchv1.Job
			switch d.Kind() {
			case "Job":
				if _, err := d.DecodeStrict(&job); err != nil {
					continue
				}
			case "CronJob":
				var cj batchv1.CronJob
				if _, err := d.DecodeStrict(&cj); err != nil {
					continue
				}
				job.Name, job.Spec = cj.Name, cj.Spec.JobTemplate.Spec
			default:
				continue
			}
			findings := lint.CheckJob(&job, lint.Options{})
			compared++
			byRule := map[string]string{}
			for _, fd := range findings {
				byRule[fd.Rule] = fd.Message
			}
			byCode := map[string]string{}
			for _, w := range policyWarnings(SideDesired, &job) {
				byCode[w.Code] = w.Message
			}
			for _, pair := range []struct{ rule, code string }{
				{lint.RulePrepareDB, WarnPrepareDBMode},
				{lint.RuleBackoffWithPerIdx, WarnBackoffLimitWithPerIndex},
			} {
				lm, inLint := byRule[pair.rule]
				dm, inDiff := byCode[pair.code]
				if inLint != inDiff {
					t.Errorf("%s (%s): lint %s %v, diff %s %v\n  lint: %s\n  diff: %s", f, job.Name, pair.rule, inLint, pair.code, inDiff, lm, dm)
					continue
				}
				if inLint && dm != "the desired Job: "+lm && !strings.HasPrefix(dm, "the desired Job: "+lm+"; ") {
					t.Errorf("%s (%s): the words differ\n  lint: %s\n  diff: %s", f, job.Name, lm, dm)
				}
				if inLint && pair.code == WarnPrepareDBMode {
					prepareDB++
				}
				if inLint && pair.code == WarnBackoffLimitWithPerIndex {
					beside++
				}
			}
		}
	}
	if compared < 60 || prepareDB == 0 || beside == 0 {
		t.Fatalf("compared %d Jobs, %d prepare-db, %d backoffLimit next to backoffLimitPerIndex: the corpus is not exercised", compared, prepareDB, beside)
	}
	t.Logf("lint and diff agree on %d Jobs of the corpus (%d prepare-db, %d backoffLimit next to backoffLimitPerIndex)", compared, prepareDB, beside)
}
