package main

import (
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/untranslated"
)

// The binary links kubectl packages that call i18n.T while they are initialized; untranslated
// must have been initialized before them, or kubectl's catalog loads at every start.
func TestKubectlCatalogNotLoaded(t *testing.T) {
	if err := untranslated.Err; err != nil {
		t.Fatalf("kubectl's translations loaded before package untranslated was initialized: %v", err)
	}
}
