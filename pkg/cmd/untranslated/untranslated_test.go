package untranslated

import (
	"testing"

	"k8s.io/kubectl/pkg/util/i18n"
)

func TestMessagesStayEnglish(t *testing.T) {
	if err := Err; err != nil {
		t.Fatal(err)
	}
	t.Setenv("LANG", "de_DE.UTF-8")
	// kubectl's German catalog translates this; without the catalog it stays as given.
	if got, want := i18n.T("Display one or many resources"), "Display one or many resources"; got != want {
		t.Errorf("T = %q, want %q", got, want)
	}
}
