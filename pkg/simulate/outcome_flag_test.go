package simulate

import (
	"strings"
	"testing"
)

// TestOutcomeIndexGrammar: --outcome, --duration and --condition take the plugin's one index
// grammar, 2,5,11-14=1 (it was refused: only N or N-M). Fails before the fix.
func TestOutcomeIndexGrammar(t *testing.T) {
	o := NewOutcomes()
	if err := o.ParseOutcome("2,5,11-14=1"); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{2, 5, 11, 12, 13, 14} {
		if c := o.Codes[i]; len(c) != 1 || c[0] != 1 {
			t.Errorf("index %d: %v", i, c)
		}
	}
	if len(o.Codes) != 6 {
		t.Errorf("%d indexes set", len(o.Codes))
	}
	if err := o.ParseDuration("0,3=5s"); err != nil {
		t.Error(err)
	}
	if err := o.ParseCondition("1,4-5=DisruptionTarget"); err != nil {
		t.Error(err)
	}
	err := o.ParseOutcome("3-1=1")
	if err == nil || !strings.Contains(err.Error(), `"3-1" ends before it starts: give completion indexes, a list such as 2,5,11-14`) {
		t.Errorf("bad list: %v", err)
	}
}
