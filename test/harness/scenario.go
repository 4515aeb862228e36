package harness

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Scenario annotations. Put them on a Job's pod template (spec.template.metadata.annotations);
// every pod inherits them and kwok's stages (stages.yaml) read them. See test/README.md.
//
// Keys take an optional suffix: ".<index>" applies to one completion index (the one the worker
// sees: a literal JOB_COMPLETION_INDEX in the first container that sets it, as a retry of a
// Job that create did not make pins it, else the pod's completion index), ".<index>.<attempt>"
// to one attempt of it. The attempt is 0 for the first pod of an index and is
// failure-count + ignored-failure-count from the pod's batch.kubernetes.io annotations, so
// attempt keys only work for Jobs with backoffLimitPerIndex (the only Jobs whose pods carry the
// count). The most specific key present wins.
const (
	ScenarioPrefix = "scenario.indexed.kubectl.io/"

	// AnnotationExitCode: exit code 0..255 the pod's container(s) end with. Default 0. With
	// restartPolicy OnFailure a non-zero exit restarts the container in place (restartCount +1)
	// and the pod keeps running. Suffixes: .<index>, .<index>.<attempt>.
	AnnotationExitCode = ScenarioPrefix + "exit-code"
	// AnnotationRunTime: how long a pod runs before it ends, a Go duration ("1s", "2m"), or
	// "never" to keep it running until deleted. Default 1s. Suffixes: .<index>, .<index>.<attempt>.
	AnnotationRunTime = ScenarioPrefix + "run-time"
	// AnnotationCondition: a pod condition type (e.g. DisruptionTarget) set True when the pod
	// ends; the pod then fails, with exit code 137 unless an exit code is given.
	// Suffixes: .<index>, .<index>.<attempt>.
	AnnotationCondition = ScenarioPrefix + "condition"
	// AnnotationContainer: the container that carries the exit code; the others exit 0.
	// Default: every container. No suffix.
	AnnotationContainer = ScenarioPrefix + "container"
	// AnnotationTerminationDelay: how long a deleted pod stays Terminating (still Running)
	// before its containers are killed (exit 137) and it is removed. Default 0s.
	// Suffix: .<index>.
	AnnotationTerminationDelay = ScenarioPrefix + "termination-delay"
	// AnnotationTerminationMessage: the termination message of the container(s) that carry the
	// exit code, set once the pod has finished (a receipt summary, for reconcile and status).
	// Default: none. Suffixes: .<index>, .<index>.<attempt>.
	AnnotationTerminationMessage = ScenarioPrefix + "termination-message"

	// RunTimeNever keeps a pod running until it is deleted.
	RunTimeNever = "never"
)

// maxTerminationMessage is the most a kubelet keeps of a container's termination message
// (MaxContainerTerminationMessageLength in the mirrored Kubernetes release, pkg/version).
const maxTerminationMessage = 4096

// scenarioKeys maps each base key to the number of numeric suffixes it accepts.
var scenarioKeys = map[string]int{
	AnnotationExitCode:           2,
	AnnotationRunTime:            2,
	AnnotationCondition:          2,
	AnnotationContainer:          0,
	AnnotationTerminationDelay:   1,
	AnnotationTerminationMessage: 2,
}

// IndexKey returns base + ".<index>".
func IndexKey(base string, index int) string { return fmt.Sprintf("%s.%d", base, index) }

// AttemptKey returns base + ".<index>.<attempt>".
func AttemptKey(base string, index, attempt int) string {
	return fmt.Sprintf("%s.%d.%d", base, index, attempt)
}

// Scenario builds scenario annotations in Go; the zero value is not usable, use NewScenario.
type Scenario struct{ m map[string]string }

// NewScenario returns an empty scenario (every pod runs 1s and exits 0).
func NewScenario() *Scenario { return &Scenario{m: map[string]string{}} }

// ExitCode sets the default exit code.
func (s *Scenario) ExitCode(code int) *Scenario {
	s.m[AnnotationExitCode] = strconv.Itoa(code)
	return s
}

// IndexExitCode sets the exit code of every attempt of index.
func (s *Scenario) IndexExitCode(index, code int) *Scenario {
	s.m[IndexKey(AnnotationExitCode, index)] = strconv.Itoa(code)
	return s
}

// AttemptExitCode sets the exit code of one attempt (0-based) of index.
func (s *Scenario) AttemptExitCode(index, attempt, code int) *Scenario {
	s.m[AttemptKey(AnnotationExitCode, index, attempt)] = strconv.Itoa(code)
	return s
}

// RunTime sets the default run time.
func (s *Scenario) RunTime(d time.Duration) *Scenario {
	s.m[AnnotationRunTime] = d.String()
	return s
}

// IndexRunsForever keeps every pod of index running until it is deleted.
func (s *Scenario) IndexRunsForever(index int) *Scenario {
	s.m[IndexKey(AnnotationRunTime, index)] = RunTimeNever
	return s
}

// IndexCondition makes every attempt of index end Failed with condition type set True.
func (s *Scenario) IndexCondition(index int, conditionType string) *Scenario {
	s.m[IndexKey(AnnotationCondition, index)] = conditionType
	return s
}

// Container names the container that carries the exit code.
func (s *Scenario) Container(name string) *Scenario {
	s.m[AnnotationContainer] = name
	return s
}

// TerminationDelay sets how long deleted pods stay Terminating.
func (s *Scenario) TerminationDelay(d time.Duration) *Scenario {
	s.m[AnnotationTerminationDelay] = d.String()
	return s
}

// IndexTerminationMessage sets the termination message of every attempt of index.
func (s *Scenario) IndexTerminationMessage(index int, msg string) *Scenario {
	s.m[IndexKey(AnnotationTerminationMessage, index)] = msg
	return s
}

// Annotations returns a copy of the annotations, ready for a pod template.
func (s *Scenario) Annotations() map[string]string {
	out := make(map[string]string, len(s.m))
	for k, v := range s.m {
		out[k] = v
	}
	return out
}

// ValidateScenarioAnnotations checks every annotation under ScenarioPrefix: a known key, numeric
// suffixes where allowed, and a value kwok's stages can use (the stages cannot report errors:
// a bad value would silently act as a default). Other annotations are ignored.
func ValidateScenarioAnnotations(annotations map[string]string) error {
	keys := make([]string, 0, len(annotations))
	for k := range annotations {
		if strings.HasPrefix(k, ScenarioPrefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var errs []error
	for _, k := range keys {
		if err := validateScenarioAnnotation(k, annotations[k]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func validateScenarioAnnotation(key, value string) error {
	name := strings.TrimPrefix(key, ScenarioPrefix)
	parts := strings.Split(name, ".")
	base := ScenarioPrefix + parts[0]
	maxSuffixes, ok := scenarioKeys[base]
	if !ok {
		return fmt.Errorf("annotation %q: unknown scenario key %q (known: exit-code, run-time, condition, container, termination-delay, termination-message)", key, parts[0])
	}
	suffixes := parts[1:]
	if len(suffixes) > maxSuffixes {
		return fmt.Errorf("annotation %q: %s takes at most %d numeric suffix(es) (.<index>[.<attempt>])", key, parts[0], maxSuffixes)
	}
	for _, s := range suffixes {
		if n, err := strconv.Atoi(s); err != nil || n < 0 || strconv.Itoa(n) != s {
			return fmt.Errorf("annotation %q: suffix %q is not a non-negative integer without leading zeros", key, s)
		}
	}
	switch base {
	case AnnotationExitCode:
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 || n > 255 || strconv.Itoa(n) != value {
			return fmt.Errorf("annotation %q: exit code %q is not an integer in 0..255", key, value)
		}
	case AnnotationRunTime, AnnotationTerminationDelay:
		if base == AnnotationRunTime && value == RunTimeNever {
			return nil
		}
		d, err := time.ParseDuration(value)
		if err != nil || d < 0 {
			hint := ""
			if _, aerr := strconv.Atoi(value); aerr == nil {
				hint = fmt.Sprintf(" (a bare number is not a duration: write %ss)", value)
			}
			return fmt.Errorf("annotation %q: %q is not a non-negative Go duration%s", key, value, hint)
		}
	case AnnotationCondition:
		if msgs := validation.IsQualifiedName(value); len(msgs) > 0 {
			return fmt.Errorf("annotation %q: condition type %q: %s", key, value, strings.Join(msgs, "; "))
		}
	case AnnotationTerminationMessage:
		if len(value) > maxTerminationMessage {
			return fmt.Errorf("annotation %q: %d bytes: a kubelet keeps at most %d bytes of a termination message", key, len(value), maxTerminationMessage)
		}
	case AnnotationContainer:
		if msgs := validation.IsDNS1123Label(value); len(msgs) > 0 {
			return fmt.Errorf("annotation %q: container name %q: %s", key, value, strings.Join(msgs, "; "))
		}
	}
	return nil
}
