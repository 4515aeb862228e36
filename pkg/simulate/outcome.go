package simulate

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
)

// The scenario annotations of the local control plane (test/README.md, test/harness/stages.yaml):
// kwok reads them from the pod template to decide how each pod of a Job ends. The simulator
// reads the same keys with the same meaning, so one manifest predicts and runs the same way.
const (
	ScenarioPrefix             = "scenario.indexed.kubectl.io/"
	AnnotationExitCode         = ScenarioPrefix + "exit-code"
	AnnotationRunTime          = ScenarioPrefix + "run-time"
	AnnotationCondition        = ScenarioPrefix + "condition"
	AnnotationContainer        = ScenarioPrefix + "container"
	AnnotationTerminationDelay = ScenarioPrefix + "termination-delay"
	// RunTimeNever keeps a pod running until it is deleted.
	RunTimeNever = "never"
	// DefaultRunTime is the stage's run time without an annotation (scenario-pod-finish: 1s).
	DefaultRunTime = time.Second
	// KilledExitCode is the exit code of a container killed by a deletion, and of a pod failed
	// by a condition without an exit code (scenario-pod-terminate, scenario-pod-finish).
	KilledExitCode int32 = 137
)

// Attempt is how one run of a pod's container ends.
type Attempt struct {
	// ExitCode of the container (0 succeeds).
	ExitCode int32
	// Condition, when set, is a pod condition set True as the pod fails (DisruptionTarget, ...);
	// with exit code 0 the container exits 137, as kwok makes it.
	Condition string
	// Duration is how long the run takes; Never keeps the pod running until deleted.
	Duration time.Duration
	Never    bool
}

// Failed reports whether the run ends the pod (or, under restartPolicy OnFailure, the
// container) in failure.
func (r Attempt) Failed() bool { return r.ExitCode != 0 || r.Condition != "" }

// Outcomes says how every attempt of every index ends. Per-index settings (from flags) come
// first, then the scenario annotations of the pod template, then the defaults.
type Outcomes struct {
	// Codes, Durations and Conditions per index: one entry per attempt, the last repeats.
	Codes      map[int][]int32
	Durations  map[int][]runTime
	Conditions map[int][]string
	// DefaultCode and DefaultDuration apply to indexes without a flag of their own; nil keeps
	// the annotations' (or the built-in) default.
	DefaultCode     *int32
	DefaultDuration *runTime
	// TerminationDelay is how long a deleted pod stays Terminating (default 0).
	TerminationDelay *time.Duration

	// annotations are the scenario annotations of the pod template, by key parts.
	annotations map[annKey]string
}

// annKey is a scenario annotation key split into its base (position in annBases) and
// suffixes (-1 when absent).
type annKey struct {
	base           uint8
	index, attempt int32
}

// annBases are the scenario annotation keys without suffixes.
var annBases = []string{AnnotationExitCode, AnnotationRunTime, AnnotationCondition, AnnotationContainer, AnnotationTerminationDelay}

func baseID(base string) (uint8, bool) {
	i := slices.Index(annBases, base)
	return uint8(i), i >= 0
}

type runTime struct {
	d     time.Duration
	never bool
}

// NewOutcomes returns empty outcomes: every pod runs 1s and exits 0.
func NewOutcomes() *Outcomes {
	return &Outcomes{Codes: map[int][]int32{}, Durations: map[int][]runTime{}, Conditions: map[int][]string{}}
}

// WithAnnotations returns o reading the scenario annotations of a pod template as well.
func (o *Outcomes) WithAnnotations(a map[string]string) *Outcomes {
	c := *o
	c.annotations = map[annKey]string{}
	for k, v := range a {
		if !strings.HasPrefix(k, ScenarioPrefix) {
			continue
		}
		parts := strings.Split(strings.TrimPrefix(k, ScenarioPrefix), ".")
		if len(parts) > 3 {
			continue
		}
		id, known := baseID(ScenarioPrefix + parts[0])
		if !known {
			continue
		}
		// The .<index> and .<attempt> suffixes, -1 when absent.
		suffix := [2]int32{-1, -1}
		valid := true
		for k, part := range parts[1:] {
			n, err := strconv.ParseInt(part, 10, 32)
			valid = valid && err == nil && n >= 0 && strconv.FormatInt(n, 10) == part
			suffix[k] = int32(n)
		}
		if !valid {
			continue
		}
		c.annotations[annKey{base: id, index: suffix[0], attempt: suffix[1]}] = v
	}
	return &c
}

// lookup mirrors the stages' lookup: the most specific key wins, .<index>.<attempt> (only when
// attempt >= 0: kwok knows the attempt only from the index-failure-count annotations that
// backoffLimitPerIndex puts on pods), then .<index>, then the bare key.
func (o *Outcomes) lookup(base string, index, attempt int) (string, bool) {
	if v, ok := o.specific(base, index, attempt); ok {
		return v, true
	}
	return o.specific(base, -1, -1) // the bare key
}

// Attempt returns how a run of index ends. run counts the earlier runs of the index (pods and
// container restarts), which is what the per-attempt flags index; kwAttempt is kwok's attempt
// (failure-count + ignored-failure-count of the pod, -1 without backoffLimitPerIndex), which is
// what the attempt suffix of the annotations means.
func (o *Outcomes) Attempt(index, run, kwAttempt int) Attempt {
	r := Attempt{
		ExitCode: setting(o, o.Codes, o.DefaultCode, AnnotationExitCode, index, run, kwAttempt,
			atoi32, 0),
		Condition: setting(o, o.Conditions, nil, AnnotationCondition, index, run, kwAttempt,
			func(v string) string { return v }, ""),
	}
	rt := setting(o, o.Durations, o.DefaultDuration, AnnotationRunTime, index, run, kwAttempt,
		parseRunTimeLenient, runTime{d: DefaultRunTime})
	r.Duration, r.Never = rt.d, rt.never
	if r.Condition != "" && r.ExitCode == 0 {
		r.ExitCode = KilledExitCode
	}
	return r
}

// setting is one setting of a run of index: the index's flag, else its annotation (of the
// index or attempt), else the default flag (def), else the bare annotation, else zero. The
// default flag comes before the bare key only, so lookup's fall back to it is not used first.
func setting[T any](o *Outcomes, flags map[int][]T, def *T, key string, index, run, kwAttempt int,
	parse func(string) T, zero T) T {
	if vs, ok := flags[index]; ok {
		return vs[min(run, len(vs)-1)] // the last value repeats
	}
	if v, ok := o.specific(key, index, kwAttempt); ok {
		return parse(v)
	}
	if def != nil {
		return *def
	}
	if v, ok := o.lookup(key, index, kwAttempt); ok {
		return parse(v)
	}
	return zero
}

// specific is lookup without the bare key (which is specific's at index -1).
func (o *Outcomes) specific(base string, index, attempt int) (string, bool) {
	if o.annotations == nil || index > math.MaxInt32 || attempt > math.MaxInt32 {
		return "", false
	}
	id, _ := baseID(base)
	if attempt >= 0 {
		if v, ok := o.annotations[annKey{id, int32(index), int32(attempt)}]; ok {
			return v, true
		}
	}
	v, ok := o.annotations[annKey{id, int32(index), -1}]
	return v, ok
}

// Delay is how long a deleted pod of index stays Terminating.
func (o *Outcomes) Delay(index int) time.Duration {
	if o.TerminationDelay != nil {
		return *o.TerminationDelay
	}
	if v, ok := o.lookup(AnnotationTerminationDelay, index, -1); ok {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return 0
}

// Container is the container that carries the exit code ("" for every container).
func (o *Outcomes) Container() string {
	v, _ := o.specific(AnnotationContainer, -1, -1)
	return v
}

// atoi32 reads an exit code as the stages' atoi does: anything unparsable is 0.
func atoi32(v string) int32 {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}

// parseRunTimeLenient reads a run time as kwok's durationFrom does; an unparsable value falls
// back to the stage's durationMilliseconds (1s).
func parseRunTimeLenient(v string) runTime {
	rt, err := ParseRunTime(v)
	if err != nil {
		return runTime{d: DefaultRunTime}
	}
	return rt
}

// ValidateAnnotations checks scenario annotations as the harness does
// (ValidateScenarioAnnotations): known keys, at most .<index>.<attempt> suffixes, values that
// parse.
func ValidateAnnotations(a map[string]string) error {
	maxSuffixes := map[string]int{"exit-code": 2, "run-time": 2, "condition": 2, "container": 0, "termination-delay": 1}
	for k, v := range a {
		if !strings.HasPrefix(k, ScenarioPrefix) {
			continue
		}
		parts := strings.Split(strings.TrimPrefix(k, ScenarioPrefix), ".")
		most, ok := maxSuffixes[parts[0]]
		if !ok {
			return fmt.Errorf("annotation %q: unknown scenario key %q (known: exit-code, run-time, condition, container, termination-delay)", k, parts[0])
		}
		if len(parts)-1 > most {
			return fmt.Errorf("annotation %q: %s takes at most %d numeric suffix(es) (.<index>[.<attempt>])", k, parts[0], most)
		}
		for _, s := range parts[1:] {
			if n, err := strconv.Atoi(s); err != nil || n < 0 || strconv.Itoa(n) != s {
				return fmt.Errorf("annotation %q: suffix %q is not a non-negative integer without leading zeros", k, s)
			}
		}
		switch parts[0] {
		case "exit-code":
			if n, err := strconv.Atoi(v); err != nil || n < 0 || n > 255 {
				return fmt.Errorf("annotation %q: %q is not an exit code (0-255)", k, v)
			}
		case "run-time", "termination-delay":
			if v == RunTimeNever && parts[0] == "run-time" {
				continue
			}
			if d, err := time.ParseDuration(v); err != nil || d < 0 {
				return fmt.Errorf("annotation %q: %q is not a Go duration such as 2s", k, v)
			}
		case "condition":
			if v == "" {
				return fmt.Errorf("annotation %q: empty condition type", k)
			}
		}
	}
	return nil
}

// ParseOutcome parses one --outcome value, INDEX=CODE[,CODE...] (INDEX a list such as 2,5,11-14).
func (o *Outcomes) ParseOutcome(v string) error {
	return parseFlag(o.Codes, v, "--outcome", "INDEX=CODE[,CODE...]", func(s string) (int32, error) {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 || n > 255 {
			return 0, fmt.Errorf("%q is not an exit code (0-255)", s)
		}
		return int32(n), nil
	})
}

// ParseDuration parses one --duration value, INDEX=DUR[,DUR...] (DUR a Go duration or never).
func (o *Outcomes) ParseDuration(v string) error {
	return parseFlag(o.Durations, v, "--duration", "INDEX=DURATION[,DURATION...]", func(s string) (runTime, error) {
		return ParseRunTime(strings.TrimSpace(s))
	})
}

// ParseCondition parses one --condition value, INDEX=TYPE[,TYPE...]; an empty TYPE is an attempt
// without a condition.
func (o *Outcomes) ParseCondition(v string) error {
	return parseFlag(o.Conditions, v, "--condition", "INDEX=TYPE[,TYPE...]", func(s string) (string, error) {
		if s = strings.TrimSpace(s); strings.ContainsAny(s, " =") {
			return "", fmt.Errorf("%q is not a pod condition type", s)
		}
		return s, nil
	})
}

// ParseRunTime parses a Go duration or "never".
func ParseRunTime(s string) (runTime, error) {
	if s == RunTimeNever {
		return runTime{never: true}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return runTime{}, fmt.Errorf("%q is not a duration such as 30s or 2m, nor %q", s, RunTimeNever)
	}
	return runTime{d: d}, nil
}

// SetDefaultDuration sets --default-duration.
func (o *Outcomes) SetDefaultDuration(s string) error {
	rt, err := ParseRunTime(s)
	if err != nil {
		return fmt.Errorf("--default-duration: %w", err)
	}
	o.DefaultDuration = &rt
	return nil
}

// maxFlagIndexes bounds a range in one flag.
const maxFlagIndexes = 1 << 20

// parseFlag parses v, one INDEX=VALUE[,VALUE...] value of flag (form is its syntax), into dst:
// each index named gets the values, each read by parse.
func parseFlag[T any](dst map[int][]T, v, flag, form string, parse func(string) (T, error)) error {
	key, val, ok := strings.Cut(v, "=")
	if !ok || val == "" {
		return fmt.Errorf("%s %q: want %s", flag, v, form)
	}
	// INDEX is the plugin's one index grammar (2,5,11-14), as for logs --index and retry.
	set, err := indexes.ParseFlag(flag+" INDEX", key)
	if err != nil {
		return fmt.Errorf("%s %q: %w", flag, v, err)
	}
	if set.Len() > maxFlagIndexes {
		return fmt.Errorf("%s %q: too many indexes (at most %d)", flag, v, maxFlagIndexes)
	}
	var values []T
	for _, s := range strings.Split(val, ",") {
		x, err := parse(s)
		if err != nil {
			return fmt.Errorf("%s %q: %w", flag, v, err)
		}
		values = append(values, x)
	}
	for i := range set.All() {
		dst[i] = values
	}
	return nil
}

// OutOfRange lists the indexes the flags name that a Job of completions indexes does not have.
func (o *Outcomes) OutOfRange(completions int) []int {
	named := slices.Concat(slices.Collect(maps.Keys(o.Codes)),
		slices.Collect(maps.Keys(o.Durations)), slices.Collect(maps.Keys(o.Conditions)))
	out := slices.DeleteFunc(named, func(i int) bool { return i < completions })
	slices.Sort(out)
	return slices.Compact(out)
}
