package jobref

import (
	"strings"
	"testing"
)

func TestName(t *testing.T) {
	for arg, want := range map[string]string{
		"eval": "eval", "job/eval": "eval", "jobs/eval": "eval", "job.batch/eval": "eval",
		"jobs.batch/eval": "eval", "jobs.v1.batch/eval": "eval", "Job/eval": "eval",
	} {
		if got, err := Name(arg); err != nil || got != want {
			t.Errorf("Name(%q) = %q, %v; want %q", arg, got, err, want)
		}
	}
	for arg, want := range map[string]string{
		"pod/eval":      `"pod/eval" is not a Job`,
		"cronjob/eval":  `"cronjob/eval" is not a Job`,
		"job/":          `names no Job`,
		"job/a/b":       `"a/b" is not a valid Job name`,
		"Eval":          `"Eval" is not a valid Job name`,
		"deploy.apps/x": `is not a Job`,
	} {
		if _, err := Name(arg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Name(%q): %v, want %q", arg, err, want)
		}
	}
}
