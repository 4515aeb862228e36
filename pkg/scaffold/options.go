// Package scaffold turns a shard manifest and a few choices into the two objects `kubectl
// indexed create` sends: an immutable ConfigMap named from the manifest's content hash, holding
// the manifest and one entry per completion index, and an Indexed Job whose retry policy lets
// every shard fail or succeed on its own. It does not talk to a cluster.
package scaffold

import (
	"fmt"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// Defaults of the Job's policy, documented (with why) in docs/create.md.
const (
	// DefaultContainerName is the worker container's name when there is no --from-job to
	// take it from.
	DefaultContainerName = "worker"
	// DefaultBackoffLimitPerIndex gives every shard one retry: enough to ride out a
	// transient failure, not enough to burn hours on a shard that fails for a reason.
	DefaultBackoffLimitPerIndex int32 = 1
	// DefaultInvalidInputExitCode is this tool's convention for "this shard's input is
	// invalid: do not retry it". 42 is outside the codes shells and runtimes use (1, 2, 126,
	// 127, 128+signal) and outside sysexits.h (64–78).
	DefaultInvalidInputExitCode int32 = 42
)

// DefaultMaxFailedIndexes is jobpolicy.MaxFailedIndexesPercent (half) of the shards, rounded
// down: the rule lint advises too (why half: see there).
var DefaultMaxFailedIndexes = Budget{Percent: true, Value: jobpolicy.MaxFailedIndexesPercent}

// Options are the inputs of Build: everything `kubectl indexed create` takes from its flags and
// files. Pointer fields are nil when the flag was not given: the value then comes from Base
// (the --from-job file) if it sets one, and otherwise from the default.
type Options struct {
	// Manifest is the shard manifest (required, already validated).
	Manifest *shards.Manifest
	// JobName and Namespace name the Job; the ConfigMap goes to the same namespace.
	JobName   string
	Namespace string

	// Base is a Job to start from (from --from-job), or nil. BaseSource names it in messages.
	Base       *batchv1.Job
	BaseSource string
	// BaseNotes say what was taken from the --from-job file (the Job of create's List, the
	// manifest of its ConfigMap); Build returns them first among its notes.
	BaseNotes []string

	// Image of the worker container (required unless Base's worker has one).
	Image string
	// Command replaces the worker's command (and clears its args) when not empty.
	Command []string
	// ContainerName picks the worker container. Empty: the container named "worker" in Base,
	// else Base's only container, else a new container named "worker".
	ContainerName string
	// Env is added to the worker container's environment (after the INDEXED_* variables, so
	// it may refer to them as $(INDEXED_SHARD_FILE)).
	Env []corev1.EnvVar
	// Requests and Limits are set on the worker container, per resource name, over Base's.
	Requests corev1.ResourceList
	Limits   corev1.ResourceList
	// ServiceAccountName is set on the pod template when not empty.
	ServiceAccountName string

	// Parallelism defaults to the number of shards.
	Parallelism *int32
	// BackoffLimitPerIndex defaults to DefaultBackoffLimitPerIndex.
	BackoffLimitPerIndex *int32
	// MaxFailedIndexes defaults to DefaultMaxFailedIndexes.
	MaxFailedIndexes *Budget
	// InvalidInputExitCode defaults to DefaultInvalidInputExitCode.
	InvalidInputExitCode *int32
	// ActiveDeadlineSeconds and TTLSecondsAfterFinished default to unset.
	ActiveDeadlineSeconds   *int64
	TTLSecondsAfterFinished *int32
	// Queue, when set, is the Kueue LocalQueue (label kueue.x-k8s.io/queue-name) and
	// PriorityClass its WorkloadPriorityClass (label kueue.x-k8s.io/priority-class); a Job that
	// names a queue is created suspended, for Kueue to admit (kueue.SuspendFor).
	Queue         string
	PriorityClass string
}

// Budget is a number of indexes allowed to fail: a count, a percentage of the shards (rounded
// down), or no limit.
type Budget struct {
	// Unlimited means no maxFailedIndexes: every index runs to its own end.
	Unlimited bool
	// Percent says Value is a percentage (0–100) of the number of shards.
	Percent bool
	Value   int32
}

// ParseBudget parses "none", a count ("3") or a percentage ("10%").
func ParseBudget(s string) (Budget, error) {
	s = strings.TrimSpace(s)
	if s == "none" || s == "" {
		return Budget{Unlimited: true}, nil
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseInt(p, 10, 32)
		if err != nil || v < 0 || v > 100 {
			return Budget{}, fmt.Errorf("invalid percentage %q: give a whole number from 0%% to 100%%", s)
		}
		return Budget{Percent: true, Value: int32(v)}, nil
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil || v < 0 {
		return Budget{}, fmt.Errorf("invalid value %q: give \"none\", a count such as 2, or a percentage of the shards such as 10%%", s)
	}
	return Budget{Value: int32(v)}, nil
}

// String renders the budget as ParseBudget reads it.
func (b Budget) String() string {
	switch {
	case b.Unlimited:
		return "none"
	case b.Percent:
		return fmt.Sprintf("%d%%", b.Value)
	}
	return strconv.Itoa(int(b.Value))
}

// Resolve returns maxFailedIndexes for a Job with total indexes (nil for none).
func (b Budget) Resolve(total int) *int32 {
	switch {
	case b.Unlimited:
		return nil
	case b.Percent:
		return ptr.To(jobpolicy.PercentOf(total, b.Value))
	}
	return ptr.To(b.Value)
}
