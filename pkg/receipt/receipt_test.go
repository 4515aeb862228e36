package receipt

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
)

const digest = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

func validReceipt() *Receipt {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	t1 := t0.Add(time.Minute)
	return &Receipt{
		APIVersion: APIVersion, Kind: Kind,
		Attempt: Attempt{
			Manifest:        contract.ManifestRef{Name: "demo", Revision: "1", Hash: digest},
			ShardID:         "shard-0",
			CompletionIndex: 0,
			Job:             contract.JobRef{Name: "demo", UID: "u1"},
			AttemptID:       "pod-a",
			Assigned:        Assigned{Count: 3, Digest: digest},
		},
		Completed: []Result{{Case: "a"}, {Case: "b"}},
		Failed:    []Failure{{Case: "c", Class: ClassInfrastructure, Reason: "timeout"}},
		Outputs:   []string{"s3://bucket/demo/shard-0/"},
		StartedAt: &t0, FinishedAt: &t1,
	}
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseValid(t *testing.T) {
	r, err := Parse("r.json", marshal(t, validReceipt()))
	if err != nil {
		t.Fatal(err)
	}
	if r.ShardID != "shard-0" || len(r.Completed) != 2 || r.Failed[0].Class != ClassInfrastructure {
		t.Fatalf("parsed %+v", r)
	}
}

func TestParseRejects(t *testing.T) {
	good := string(marshal(t, validReceipt()))
	edit := func(f func(r *Receipt)) string {
		r := validReceipt()
		f(r)
		return string(marshal(t, r))
	}
	cases := []struct {
		name, data, want string
		truncated        bool
	}{
		{"empty", "", "empty", false},
		{"not an object", "[1,2]", "not a JSON object", false},
		{"log tail", "Traceback (most recent call last):\n  File x", "not a JSON object", false},
		{"truncated file", good[:len(good)/2], "ends before", true},
		{"unknown field", strings.Replace(good, `"shardID"`, `"shard":"x","shardID"`, 1), `unknown field "shard"`, false},
		{"trailing data", good + `{}`, "data after", false},
		{"wrong kind", edit(func(r *Receipt) { r.Kind = "ShardManifest" }), "expected apiVersion", false},
		{"no revision or hash", edit(func(r *Receipt) { r.Manifest.Revision, r.Manifest.Hash = "", "" }), "give revision or hash", false},
		{"bad hash", edit(func(r *Receipt) { r.Manifest.Hash = "md5:abc" }), "manifest.hash", false},
		{"bad digest", edit(func(r *Receipt) { r.Assigned.Digest = "abc" }), "assigned.digest", false},
		{"no attempt", edit(func(r *Receipt) { r.AttemptID = "" }), "attemptID: required", false},
		{"bad shard id", edit(func(r *Receipt) { r.ShardID = "a b" }), "shardID", false},
		{"null completed", edit(func(r *Receipt) { r.Completed = nil }), "completed: required", false},
		{"bad class", edit(func(r *Receipt) { r.Failed[0].Class = "flaky" }), `class "flaky"`, false},
		{"case twice", edit(func(r *Receipt) { r.Failed[0].Case = "a"; r.Failed[0].Class = ClassModel }), `case "a" repetition 0 is also listed at completed[0]`, false},
		{"bad case", edit(func(r *Receipt) { r.Completed[0].Case = " a" }), "invalid case ID", false},
		{"negative repetition", edit(func(r *Receipt) { r.Completed[0].Repetition = -1 }), "repetition -1", false},
		{"time order", edit(func(r *Receipt) { r.FinishedAt, r.StartedAt = r.StartedAt, r.FinishedAt }), "before startedAt", false},
		{"wrong type", strings.Replace(good, `"completionIndex":0`, `"completionIndex":"0"`, 1), "completionIndex", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("r.json", []byte(tc.data))
			var re *Error
			if !errors.As(err, &re) {
				t.Fatalf("want *Error, got %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "r.json: ") {
				t.Errorf("error %q does not name the file and say %q", err, tc.want)
			}
			if re.Truncated != tc.truncated {
				t.Errorf("truncated = %v, want %v (%v)", re.Truncated, tc.truncated, err)
			}
		})
	}
}

func TestCasesDigestIsSha256sumOfTheShardFile(t *testing.T) {
	// printf 'a\nb\n' | sha256sum (coreutils)
	const want = "sha256:911169ddaaf146aff539f58c26c489af3b892dff0fe283c1c264c65ae5aa59a2"
	if got := CasesDigest([]string{"a", "b"}); got != want {
		t.Fatalf("digest %q, want %q", got, want)
	}
}
