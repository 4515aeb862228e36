package jobdiff

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestDocsDocumentTheContract: docs/diff.md (the user documentation of diff, up to its flag
// table) names every JSON field of the report, every class, step kind and warning code, and
// every row of the mutability table.
func TestDocsDocumentTheContract(t *testing.T) {
	const page = "../../docs/diff.md"
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	section := string(b)
	if end := strings.Index(section, "\n## Flags\n"); end >= 0 {
		section = section[:end]
	}
	var names []string
	for _, v := range []any{Report{}, Target{}, LiveState{}, Difference{}, Warning{}, Step{}, ServerCheck{}, ProbeResult{}} {
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
			t.Errorf("%s does not mention %q", page, n)
		}
	}
}
