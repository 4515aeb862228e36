package diff

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobdiff"
)

// nameCandidates is how many names freeName tries before it gives up looking.
const nameCandidates = 10

// freeName returns the name the plan gives the new Job that replaces base: the first of
// jobdiff.SuggestNames that no Job in the namespace has (one GET each, live only), so that
// following the plan does not hit AlreadyExists. Offline, or when the lookup fails, it is the
// first suggestion (the plan says to choose another if it is taken).
func (o *Options) freeName(ctx context.Context, base string) string {
	names := jobdiff.SuggestNames(base, nameCandidates)
	if o.offline() || o.Client == nil {
		return names[0]
	}
	src := o.source()
	for _, n := range names {
		_, err := src.Job(ctx, n)
		switch {
		case apierrors.IsNotFound(err):
			return n
		case err != nil:
			return names[0]
		}
	}
	return names[0]
}
