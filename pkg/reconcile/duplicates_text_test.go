package reconcile

import (
	"bytes"
	"strings"
	"testing"
)

// The duplicate rule is stated once, in the help, docs, -o wide and -o json|yaml: the default
// view counts the duplicates and says where the rule is, instead of repeating its nine lines
// on every run (issue 36, item 11).
func TestDuplicateRuleNotRepeatedInText(t *testing.T) {
	rep := &Report{DuplicateRule: DuplicateRule, Shards: []ShardReport{{Index: 0, ShardID: "s0", Duplicates: 3}}}
	var text, wide bytes.Buffer
	if err := PrintText(&text, rep); err != nil {
		t.Fatal(err)
	}
	if err := PrintWide(&wide, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "Duplicates: 3 results were reported by more than one attempt") ||
		strings.Contains(text.String(), "finishedAt") || !strings.Contains(text.String(), "duplicate rule") {
		t.Errorf("text:\n%s", text.String())
	}
	if !strings.Contains(strings.Join(strings.Fields(wide.String()), " "), DuplicateRule) {
		t.Errorf("wide lacks the rule:\n%s", wide.String())
	}
}
