package jobdiff

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestReadmeDocumentsTheContract: the README's "### diff" section names every JSON field of the
// report, every class, step kind and warning code, and every row of the mutability table.
func TestReadmeDocumentsTheContract(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := strings.Index(s, "\n### diff\n")
	if start < 0 {
		t.Fatal("README has no ### diff section")
	}
	section := s[start+1:]
	if end := strings.Index(section[len("### diff\n"):], "\n## "); end >= 0 {
		section = section[:len("### diff\n")+end]
	}
	if end := strings.Index(section[len("### diff\n"):], "\n### "); end >= 0 {
		section = section[:len("### diff\n")+end]
	}
	var names []string
	for _, v := range []any{Report{}, JobRef{}, LiveState{}, Difference{}, Warning{}, Step{}, ServerCheck{}, ProbeResult{}} {
		rt := reflect.TypeOf(v)
		for i := 0; i < rt.NumField(); i++ {
			tag := strings.Split(rt.Field(i).Tag.Get("json"), ",")[0]
			if tag != "" && tag != "-" {
				names = append(names, tag+":")
			}
		}
	}
	names = append(names, string(ClassLive), string(ClassConditional), string(ClassNewJob),
		StepPatch, StepDrastic, StepTandem, StepSuspend, StepNewJob,
		WarnPrepareDBMode, WarnBackoffLimitWithPerIndex, WarnNoEffectFinished, WarnNoEffectEnding, WarnDeadlineExceededNow,
		WarnTTLNotStarted, WarnTTLDeletesNow, WarnBackoffLimitFailsNow, WarnMaxFailedIndexesFailsNow, WarnUnlimitedRetries,
		WarnCompletionsScaleDown, WarnSuspendKillsPods, WarnTemplateOnlyNewPods, WarnExternalController, WarnNameDiffers,
		APIVersion, Kind)
	for _, p := range []Phase{PhaseNotStarted, PhaseRunning, PhaseSuspending, PhaseSuspended, PhaseFailing, PhaseSucceeding, PhaseComplete, PhaseFailed} {
		names = append(names, string(p))
	}
	for _, row := range MutabilityTable() {
		for _, f := range strings.Split(row.Field, ", ") {
			f = strings.TrimSuffix(strings.Split(f, " (")[0], "[].resources")
			f = f[strings.LastIndex(f, ".")+1:]
			names = append(names, f)
		}
	}
	for _, n := range names {
		if !strings.Contains(section, n) {
			t.Errorf("README ### diff does not mention %q", n)
		}
	}
}
