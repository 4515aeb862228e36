package indexstatus

import (
	"strings"
	"testing"
)

// TestNextCommandsPrinted: every command of a Next entry (-o json's nextEntries[].command) is
// printed by the text output too (issue 35: a suspended Job's resume command was in -o json
// only).
func TestNextCommandsPrinted(t *testing.T) {
	for _, name := range fixtureNames(t) {
		f := loadFixture(t, name)
		for _, e := range f.r.NextEntries {
			if e.Command != "" && !strings.HasSuffix(e.Text, ": "+e.Command) {
				t.Errorf("%s: %s entry's command is not printed (its text does not end with it): %q", name, e.Kind, e.Command)
			}
		}
	}
}
