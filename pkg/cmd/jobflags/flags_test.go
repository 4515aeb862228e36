package jobflags

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

func parseFlags(t *testing.T, args ...string) *ScaffoldFlags {
	t.Helper()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	o := NewScaffoldFlags()
	AddScaffoldFlags(fs, o)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestToOptionsDefaults(t *testing.T) {
	m := testutil.WriteFile(t, "m.yaml", testutil.SixShards)
	opts, err := parseFlags(t, "--manifest", m, "--image", "img").ToOptions("j", "ns", []string{"run"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Manifest == nil || len(opts.Manifest.Shards) != 6 || opts.Image != "img" || opts.Command[0] != "run" {
		t.Fatalf("opts %+v", opts)
	}
	// Flags not given stay nil, so that --from-job values or scaffold's defaults apply.
	if opts.Parallelism != nil || opts.BackoffLimitPerIndex != nil || opts.MaxFailedIndexes != nil ||
		opts.InvalidInputExitCode != nil || opts.ActiveDeadlineSeconds != nil || opts.TTLSecondsAfterFinished != nil {
		t.Errorf("unset flags were set: %+v", opts)
	}
}

func TestToOptionsAllFlags(t *testing.T) {
	m := testutil.WriteFile(t, "m.yaml", testutil.SixShards)
	opts, err := parseFlags(t, "--manifest", m, "--image", "img", "--parallelism", "2", "--backoff-limit-per-index", "0",
		"--max-failed-indexes", "50%", "--invalid-input-exit-code", "3", "--active-deadline-seconds", "1",
		"--ttl-seconds-after-finished", "60", "--requests", "cpu=500m, memory=1Gi", "--limits", "memory=2Gi",
		"--env", "A=1", "--env", "B=x=y", "--container", "c", "--service-account", "sa").ToOptions("j", "ns", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *opts.Parallelism != 2 || *opts.BackoffLimitPerIndex != 0 || opts.MaxFailedIndexes.String() != "50%" ||
		*opts.InvalidInputExitCode != 3 || *opts.ActiveDeadlineSeconds != 1 || *opts.TTLSecondsAfterFinished != 60 ||
		opts.ContainerName != "c" || opts.ServiceAccountName != "sa" {
		t.Errorf("opts %+v", opts)
	}
	if q := opts.Requests[corev1.ResourceMemory]; q.Cmp(resource.MustParse("1Gi")) != 0 || len(opts.Requests) != 2 || len(opts.Limits) != 1 {
		t.Errorf("resources %v %v", opts.Requests, opts.Limits)
	}
	if len(opts.Env) != 2 || opts.Env[1].Value != "x=y" {
		t.Errorf("env %v", opts.Env)
	}
}

func TestToOptionsErrors(t *testing.T) {
	m := testutil.WriteFile(t, "m.yaml", testutil.SixShards)
	bad := testutil.WriteFile(t, "bad.yaml", "apiVersion: indexed.kubectl.io/v1alpha1\nkind: ShardManifest\nmetadata: {name: x}\nrevision: '1'\nshards: []\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--image", "i"}, "--manifest is required"},
		{[]string{"--manifest", bad}, "no shards: a manifest needs at least one shard"},
		{[]string{"--manifest", filepath.Join(t.TempDir(), "nope.yaml")}, "nope.yaml: no such file or directory"},
		{[]string{"--manifest", "-", "--from-job", "-"}, "cannot both be read from stdin"},
		{[]string{"--manifest", m, "--parallelism", "0"}, "--parallelism must be at least 1, not 0"},
		{[]string{"--manifest", m, "--backoff-limit-per-index", "-1"}, "must be 0 or more, not -1"},
		{[]string{"--manifest", m, "--max-failed-indexes", "lots"}, `--max-failed-indexes: invalid value "lots"`},
		{[]string{"--manifest", m, "--active-deadline-seconds", "-5"}, "--active-deadline-seconds must be at least 1, not -5"},
		{[]string{"--manifest", m, "--active-deadline-seconds", "0"}, "--active-deadline-seconds must be at least 1, not 0: 0 fails the Job before any pod runs"},
		{[]string{"--manifest", m, "--ttl-seconds-after-finished", "-1"}, "--ttl-seconds-after-finished must be at least 1, not -1"},
		{[]string{"--manifest", m, "--ttl-seconds-after-finished", "0"}, "--ttl-seconds-after-finished must be at least 1, not 0: 0 deletes the Job"},
		{[]string{"--manifest", m, "--invalid-input-exit-code", "137"}, "--invalid-input-exit-code 137 is 128+9, the code of a process killed by signal 9"},
		{[]string{"--manifest", m, "--invalid-input-exit-code", "0"}, "--invalid-input-exit-code must be between 1 and 255, not 0"},
		{[]string{"--manifest", m, "--requests", "cpu"}, `--requests "cpu": give name=quantity pairs`},
		{[]string{"--manifest", m, "--limits", "memory=lots"}, `--limits: memory="lots"`},
		{[]string{"--manifest", m, "--env", "NOVALUE"}, `--env "NOVALUE": give NAME=VALUE`},
		{[]string{"--manifest", m, "--env", "1BAD=x"}, `--env "1BAD=x": invalid name`},
		// Issue 35 (LOW): a repeated name kept the last value silently.
		{[]string{"--manifest", m, "--env", "A=1", "--env", "A=2"}, `--env A is given twice ("A=1" and "A=2")`},
		{[]string{"--manifest", m, "--from-job", filepath.Join(t.TempDir(), "nojob.yaml")}, "--from-job: "},
	} {
		_, err := parseFlags(t, tc.args...).ToOptions("j", "ns", nil, strings.NewReader(""))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
	}
}
