// Package jobflags holds what create, retry and diff share: ScaffoldFlags, the flags that
// decide which objects create makes (diff and create bind them), and Submitter, the flags and
// the sending that create and retry share once their objects are built (lint, --save,
// --save-config, --dry-run, -o, --field-manager). It is a package of its own so that no verb
// package imports another.
package jobflags

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// ScaffoldFlags are the flags that decide which objects create makes. They are shared with
// other verbs that need "the objects create would make" (diff): bind them with
// AddScaffoldFlags and turn them into scaffold.Options with ToOptions.
type ScaffoldFlags struct {
	// Manifest is the shard manifest file ("-" for stdin). Required.
	Manifest string
	// FromJob is a Job, CronJob, PodTemplate or Pod file to start from ("-" for stdin).
	FromJob string
	// Image of the worker container.
	Image string
	// Container names the worker container.
	Container string
	// Parallelism: 0 (not given) means the --from-job value, else the number of shards.
	Parallelism int32
	// BackoffLimitPerIndex, InvalidInputExitCode: the values of the flags (with their
	// defaults); when the flag was not given, a --from-job value wins over the default.
	BackoffLimitPerIndex int32
	InvalidInputExitCode int32
	// MaxFailedIndexes is "none", a count or a percentage of the shards; when the flag was not
	// given, a --from-job value wins over the default.
	MaxFailedIndexes string
	// ActiveDeadlineSeconds and TTLSecondsAfterFinished are only set when their flag is given.
	ActiveDeadlineSeconds   int64
	TTLSecondsAfterFinished int32
	// Requests and Limits are "name=quantity,..." lists.
	Requests string
	Limits   string
	// Env holds NAME=VALUE pairs.
	Env []string
	// ServiceAccount is the pod's service account.
	ServiceAccount string
	// Queue and PriorityClass are Kueue's LocalQueue and WorkloadPriorityClass.
	Queue         string
	PriorityClass string

	fs *pflag.FlagSet
}

// Flag names, for messages and completion.
const (
	FlagManifest = "manifest"
	FlagFromJob  = "from-job"
	FlagImage    = "image"
)

// NewScaffoldFlags returns the flags with their defaults.
func NewScaffoldFlags() *ScaffoldFlags {
	return &ScaffoldFlags{
		BackoffLimitPerIndex: scaffold.DefaultBackoffLimitPerIndex,
		InvalidInputExitCode: scaffold.DefaultInvalidInputExitCode,
		MaxFailedIndexes:     scaffold.DefaultMaxFailedIndexes.String(),
	}
}

// AddScaffoldFlags binds o to fs. o remembers fs, to tell a flag given from its default.
func AddScaffoldFlags(fs *pflag.FlagSet, o *ScaffoldFlags) {
	o.fs = fs
	fs.StringVar(&o.Manifest, FlagManifest, o.Manifest, "The shard manifest (YAML or JSON; - for stdin): shard i is what completion index i runs. Make one with 'kubectl indexed shards split'. Not needed when --from-job is what create --dry-run=client -o yaml printed: its ConfigMap holds a copy.")
	fs.StringVar(&o.FromJob, FlagFromJob, o.FromJob, "Start from this Job, CronJob, PodTemplate or Pod (YAML or JSON; - for stdin): what it sets is kept unless a flag says otherwise; what cannot work with shards is refused.")
	fs.StringVar(&o.Image, FlagImage, o.Image, "Image of the worker container (required unless --from-job gives one).")
	fs.StringVar(&o.Container, "container", o.Container, "Name of the worker container (default: \"worker\", or the only container of --from-job).")
	fs.Int32Var(&o.Parallelism, "parallelism", o.Parallelism, "How many indexes run at once (default: the --from-job value, else the number of shards).")
	fs.Int32Var(&o.BackoffLimitPerIndex, "backoff-limit-per-index", o.BackoffLimitPerIndex, "Retries per index before the index is marked failed (a --from-job value wins over the default).")
	fs.StringVar(&o.MaxFailedIndexes, "max-failed-indexes", o.MaxFailedIndexes, "Fail the whole Job, stopping its running shards, once more indexes than this have failed: a count, a percentage of the shards (rounded down), or none (a --from-job value wins over the default).")
	fs.Int32Var(&o.InvalidInputExitCode, "invalid-input-exit-code", o.InvalidInputExitCode, "Exit code with which the worker says its shard's input is invalid: the index fails at once, without retries.")
	fs.Int64Var(&o.ActiveDeadlineSeconds, "active-deadline-seconds", o.ActiveDeadlineSeconds, "Fail the whole Job after this many seconds (not set unless given).")
	fs.Int32Var(&o.TTLSecondsAfterFinished, "ttl-seconds-after-finished", o.TTLSecondsAfterFinished, "Delete the Job and its pods this many seconds after it finishes (not set unless given: the evidence stays).")
	fs.StringVar(&o.Requests, "requests", o.Requests, "Resource requests of the worker, e.g. cpu=500m,memory=1Gi.")
	fs.StringVar(&o.Limits, "limits", o.Limits, "Resource limits of the worker, e.g. memory=2Gi.")
	fs.StringArrayVar(&o.Env, "env", o.Env, "Environment variable NAME=VALUE for the worker (repeatable, each NAME once).")
	fs.StringVar(&o.ServiceAccount, "service-account", o.ServiceAccount, "Service account of the pods.")
	fs.StringVar(&o.Queue, "queue", o.Queue, "Submit through this Kueue LocalQueue: the Job gets the label kueue.x-k8s.io/queue-name and is created suspended, for Kueue to admit when its ClusterQueue has quota (docs/kueue.md).")
	fs.StringVar(&o.PriorityClass, "priority-class", o.PriorityClass, "Kueue WorkloadPriorityClass of the Job (label kueue.x-k8s.io/priority-class), with --queue.")
}

// ToOptions reads the manifest and --from-job files and returns the inputs of scaffold.Build
// for a Job named jobName in namespace running command (the arguments after --). stdin is read
// for a file given as "-". Errors are about the flags or the files (usage or input errors).
func (o *ScaffoldFlags) ToOptions(jobName, namespace string, command []string, stdin io.Reader) (scaffold.Options, error) {
	opts := scaffold.Options{JobName: jobName, Namespace: namespace, Image: o.Image, Command: command,
		ContainerName: o.Container, ServiceAccountName: o.ServiceAccount, Queue: o.Queue, PriorityClass: o.PriorityClass}
	if o.Manifest == "" && o.FromJob == "" {
		return opts, fmt.Errorf("--%s is required: the shard manifest (make one with 'kubectl indexed shards split')", FlagManifest)
	}
	if o.Manifest == source.StdinName && o.FromJob == source.StdinName {
		return opts, fmt.Errorf("--%s and --%s cannot both be read from stdin", FlagManifest, FlagFromJob)
	}
	var base *scaffold.BaseFile
	var err error
	if o.FromJob != "" {
		if base, err = scaffold.ReadBaseFile(o.FromJob, stdin); err != nil {
			return opts, fmt.Errorf("--%s: %w", FlagFromJob, err)
		}
		opts.Base, opts.BaseSource = base.Job, o.FromJob
		if base.Note != "" {
			opts.BaseNotes = append(opts.BaseNotes, base.Note)
		}
	}
	if o.Manifest == "" {
		// What create printed holds the manifest: the copy in its shard ConfigMap, which the
		// Job's manifest-hash annotation vouches for.
		if opts.Manifest, err = manifestOf(base); err != nil {
			return opts, fmt.Errorf("--%s is required: %w", FlagManifest, err)
		}
		opts.BaseNotes = append(opts.BaseNotes, fmt.Sprintf("no --%s: the shard manifest is the copy (%s) in the ConfigMap of --%s %s", FlagManifest, opts.Manifest.Hash(), FlagFromJob, o.FromJob))
	} else if opts.Manifest, err = shards.Read(o.Manifest, stdin); err != nil {
		return opts, err
	}
	if o.fs.Changed("parallelism") || o.Parallelism != 0 {
		if o.Parallelism < 1 {
			return opts, fmt.Errorf("--parallelism must be at least 1, not %d", o.Parallelism)
		}
		opts.Parallelism = ptr.To(o.Parallelism)
	}
	if o.fs.Changed("backoff-limit-per-index") {
		if o.BackoffLimitPerIndex < 0 {
			return opts, fmt.Errorf("--backoff-limit-per-index must be 0 or more, not %d", o.BackoffLimitPerIndex)
		}
		opts.BackoffLimitPerIndex = ptr.To(o.BackoffLimitPerIndex)
	}
	if o.fs.Changed("invalid-input-exit-code") {
		if err := checkInvalidInputExitCode(o.InvalidInputExitCode); err != nil {
			return opts, err
		}
		opts.InvalidInputExitCode = ptr.To(o.InvalidInputExitCode)
	}
	if o.fs.Changed("max-failed-indexes") {
		b, err := scaffold.ParseBudget(o.MaxFailedIndexes)
		if err != nil {
			return opts, fmt.Errorf("--max-failed-indexes: %w", err)
		}
		opts.MaxFailedIndexes = &b
	}
	if o.fs.Changed("active-deadline-seconds") {
		if o.ActiveDeadlineSeconds < 1 {
			// The API server accepts 0, and the controller then fails the Job on its first sync,
			// before any pod is created (pastActiveDeadline): refused like --parallelism 0.
			return opts, fmt.Errorf("--active-deadline-seconds must be at least 1, not %d: 0 fails the Job before any pod runs (leave the flag out for no deadline)", o.ActiveDeadlineSeconds)
		}
		opts.ActiveDeadlineSeconds = ptr.To(o.ActiveDeadlineSeconds)
	}
	if o.fs.Changed("ttl-seconds-after-finished") {
		if err := CheckTTL(o.TTLSecondsAfterFinished); err != nil {
			return opts, err
		}
		opts.TTLSecondsAfterFinished = ptr.To(o.TTLSecondsAfterFinished)
	}
	if opts.Requests, err = parseResources("requests", o.Requests); err != nil {
		return opts, err
	}
	if opts.Limits, err = parseResources("limits", o.Limits); err != nil {
		return opts, err
	}
	given := map[string]string{}
	for _, kv := range o.Env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			return opts, fmt.Errorf("--env %q: give NAME=VALUE", kv)
		}
		if msgs := validation.IsEnvVarName(name); len(msgs) > 0 {
			return opts, fmt.Errorf("--env %q: invalid name: %s", kv, strings.Join(msgs, "; "))
		}
		// A repeated name would silently keep one value (the container's last entry wins).
		if first, dup := given[name]; dup {
			return opts, fmt.Errorf("--env %s is given twice (%q and %q): give each name once", name, first, kv)
		}
		given[name] = kv
		opts.Env = append(opts.Env, corev1.EnvVar{Name: name, Value: value})
	}
	return opts, nil
}

// CreatableFromJob says whether `kubectl indexed create NAME --from-job path` (no --manifest)
// makes a Job: path is what create printed, its ConfigMap holding the manifest's copy.
func CreatableFromJob(path string) error {
	base, err := scaffold.ReadBaseFile(path, nil)
	if err != nil {
		return err
	}
	_, err = manifestOf(base)
	return err
}

// manifestOf is the shard manifest of what create printed (base): the copy in the ConfigMap
// the Job mounts, whose hash the Job records.
func manifestOf(base *scaffold.BaseFile) (*shards.Manifest, error) {
	want := shards.RecordedHash(base.Job)
	if len(base.ConfigMaps) == 0 || want == "" {
		return nil, fmt.Errorf("the shard manifest (the --%s file holds no ConfigMap of create's with a copy of it)", FlagFromJob)
	}
	for _, cm := range base.ConfigMaps {
		m, ok, err := shards.ManifestFromConfigMap(cm, want)
		if err != nil {
			return nil, err
		}
		if ok {
			return m, nil
		}
	}
	return nil, fmt.Errorf("the shard manifest (no ConfigMap of the --%s file holds a copy of it: it was too large to mount)", FlagFromJob)
}

// parseResources parses "cpu=500m,memory=1Gi".
func parseResources(flag, s string) (corev1.ResourceList, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	list := corev1.ResourceList{}
	for _, part := range strings.Split(s, ",") {
		name, qty, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("--%s %q: give name=quantity pairs separated by commas, e.g. cpu=500m,memory=1Gi", flag, s)
		}
		q, err := resource.ParseQuantity(qty)
		if err != nil {
			return nil, fmt.Errorf("--%s: %s=%q: %w", flag, name, qty, err)
		}
		list[corev1.ResourceName(name)] = q
	}
	return list, nil
}

// checkInvalidInputExitCode refuses exit codes that mean something else: 0 (success), and 128+N
// for a signal N (129..159), which a shell or the container runtime reports for a process killed
// by that signal, 137 being SIGKILL (an OOM kill, a kill after the grace period). Such an exit
// would fail the index at once, without its retries, for a cause that is not the input.
func checkInvalidInputExitCode(code int32) error {
	switch {
	case code < 1 || code > 255:
		return fmt.Errorf("--invalid-input-exit-code must be between 1 and 255, not %d", code)
	case code > 128 && code < 160:
		return fmt.Errorf("--invalid-input-exit-code %d is 128+%d, the code of a process killed by signal %d (137 is SIGKILL: an OOM kill or a kill after the grace period): such pods would fail their index at once, without retries; choose a code from 1 to 128 (the default is %d)",
			code, code-128, code-128, scaffold.DefaultInvalidInputExitCode)
	}
	return nil
}

// CheckTTL is the rule for --ttl-seconds-after-finished, shared by create and retry: at least 1.
// The API server accepts 0, but 0 deletes the Job and its pods the moment it finishes: no
// status, no exit codes, nothing for status or retry to read. Leave the flag out to keep them.
func CheckTTL(seconds int32) error {
	if seconds < 1 {
		return fmt.Errorf("--ttl-seconds-after-finished must be at least 1, not %d: 0 deletes the Job and its pods the moment it finishes, with every exit code (leave the flag out to keep them)", seconds)
	}
	return nil
}
