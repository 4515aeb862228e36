// Package receipt defines the ShardReceipt, the durable record a worker writes for the shard it
// ran (which cases it evaluated, which failed and why, where the results are), and the
// ShardReceiptSummary, its compact form for the container's termination message. It reads both
// strictly: a receipt that does not parse, has a field it does not know, or contradicts itself
// is an error naming what is wrong, never a partial value. It does not talk to a cluster.
package receipt

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// The receipt's and the summary's type.
const (
	APIVersion  = contract.APIVersion
	Kind        = contract.ShardReceipt
	SummaryKind = contract.ShardReceiptSummary
)

// Failure classes.
const (
	// ClassModel: the case was evaluated and the answer failed. It counts as evaluated.
	ClassModel = "model"
	// ClassInfrastructure: something prevented the evaluation (timeout, service error,
	// unreadable input). The case was not evaluated.
	ClassInfrastructure = "infrastructure"
)

// Limits.
const (
	// MaxReceiptBytes is the largest receipt file read (a receipt for a shard of 100,000 cases
	// of 200-byte IDs is about 25 MB).
	MaxReceiptBytes = 64 << 20
	// MaxTerminationMessage is the most the kubelet keeps of a container's termination message
	// (MaxContainerTerminationMessageLength in the mirrored Kubernetes release, pkg/version). It keeps the *last* 4,096
	// bytes of a longer file (pkg/util/tail.ReadAtMost), so a summary that is too long loses its
	// beginning.
	MaxTerminationMessage = 4096
	// MaxReasonLength bounds a failure reason.
	MaxReasonLength = 1024
)

// Assigned describes the cases the shard was given: how many and the digest of the shard file
// ($INDEXED_SHARD_FILE: every case followed by a newline), see CasesDigest.
type Assigned struct {
	Count  int    `json:"count"`
	Digest string `json:"digest"`
}

// Result is one evaluated case. Repetition is 0-based (0 when a case runs once).
type Result struct {
	Case       string `json:"case"`
	Repetition int    `json:"repetition,omitempty"`
}

// Failure is a case that failed, with its class and reason.
type Failure struct {
	Case       string `json:"case"`
	Repetition int    `json:"repetition,omitempty"`
	Class      string `json:"class"`
	Reason     string `json:"reason"`
}

// Attempt names the attempt a receipt or a summary reports: the fields both carry, in the
// same place of their JSON (an embedded struct's fields are encoded where it stands).
type Attempt struct {
	Manifest contract.ManifestRef `json:"manifest"`
	ShardID  string               `json:"shardID"`
	// CompletionIndex is the index of the pod that ran the shard (of a retry Job, its own index).
	CompletionIndex int `json:"completionIndex"`
	// Job is the Job whose pod wrote the receipt.
	Job contract.JobRef `json:"job"`
	// AttemptID is unique per pod attempt: the pod UID, or pod name and restart count.
	AttemptID string `json:"attemptID"`
	// Candidate is what was evaluated (a model, a build); part of the result identity.
	Candidate string   `json:"candidate,omitempty"`
	Assigned  Assigned `json:"assigned"`
}

// Receipt is the full record of one attempt at one shard. Its JSON field names are a public
// contract (docs/reconcile.md, docs/schemas/shardreceipt.v1alpha1.json).
type Receipt struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Attempt
	Completed []Result  `json:"completed"`
	Failed    []Failure `json:"failed"`
	// Outputs are where the results are (URIs).
	Outputs    []string   `json:"outputs,omitempty"`
	StartedAt  *time.Time `json:"startedAt,omitempty"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
}

// CasesDigest returns the digest of a shard's cases as the worker sees them: "sha256:" and the
// hex SHA-256 of the shard file, every case followed by a newline (shards.CasesText; what
// `sha256sum "$INDEXED_SHARD_FILE"` prints).
func CasesDigest(cases []string) string {
	sum := sha256.Sum256([]byte(shards.CasesText(cases)))
	return shards.FormatHash(sum[:])
}

// Error is a receipt or summary that cannot be used. Truncated is set when the input looks cut
// (a termination message longer than the kubelet keeps, or a file written only in part).
type Error struct {
	Source    string
	Truncated bool
	Problems  []string
}

func (e *Error) Error() string {
	what := "malformed"
	if e.Truncated {
		what = "truncated"
	}
	return fmt.Sprintf("%s: %s: %s", e.Source, what, strings.Join(e.Problems, "; "))
}

// maxProblems caps how many problems one Error lists.
const maxProblems = 10

type problems struct{ list []string }

func (p *problems) add(format string, a ...any) {
	if len(p.list) < maxProblems {
		p.list = append(p.list, fmt.Sprintf(format, a...))
	} else if len(p.list) == maxProblems {
		p.list = append(p.list, "and more")
	}
}

// Parse reads a receipt strictly from data. source names it in errors (a file name).
func Parse(source string, data []byte) (*Receipt, error) {
	if len(data) > MaxReceiptBytes {
		return nil, &Error{Source: source, Problems: []string{fmt.Sprintf("%d bytes: a receipt is at most %d", len(data), MaxReceiptBytes)}}
	}
	var r Receipt
	if err := decodeStrict(data, &r); err != nil {
		return nil, &Error{Source: source, Truncated: errors.Is(err, errTruncated), Problems: []string{err.Error()}}
	}
	ps := &problems{}
	r.validate(ps)
	if len(ps.list) > 0 {
		return nil, &Error{Source: source, Problems: ps.list}
	}
	return &r, nil
}

// decodeStrict decodes exactly one JSON value with no unknown fields and nothing after it.
func decodeStrict(data []byte, v any) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return errors.New("empty: no JSON object")
	}
	if trimmed[0] != '{' {
		return fmt.Errorf("not a JSON object (starts with %q)", trimmed[:min(16, len(trimmed))])
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return cleanError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON object")
	}
	return nil
}

// errTruncated marks a JSON value that ends before it is complete.
var errTruncated = errors.New("the JSON ends before the object is complete")

func cleanError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errTruncated
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) && strings.Contains(syn.Error(), "unexpected end of JSON input") {
		return errTruncated
	}
	return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "json: "))
}

func (r *Receipt) validate(ps *problems) {
	r.Attempt.validate(ps, r.APIVersion, r.Kind, Kind)
	if r.Completed == nil {
		ps.add("completed: required (an empty list when no case was evaluated)")
	}
	if r.Failed == nil {
		ps.add("failed: required (an empty list when no case failed)")
	}
	type key struct {
		c string
		r int
	}
	seen := make(map[key]string, len(r.Completed)+len(r.Failed))
	check := func(where, c string, rep int) {
		if msg := shards.ValidateCaseID(c); msg != "" {
			ps.add("%s: invalid case ID %q: %s", where, c, msg)
			return
		}
		if rep < 0 {
			ps.add("%s: case %q: repetition %d is negative", where, c, rep)
			return
		}
		k := key{c, rep}
		if prev, dup := seen[k]; dup {
			ps.add("%s: case %q repetition %d is also listed at %s: one attempt reports a result once", where, c, rep, prev)
			return
		}
		seen[k] = where
	}
	for i, res := range r.Completed {
		check(fmt.Sprintf("completed[%d]", i), res.Case, res.Repetition)
	}
	for i, f := range r.Failed {
		where := fmt.Sprintf("failed[%d]", i)
		check(where, f.Case, f.Repetition)
		if f.Class != ClassModel && f.Class != ClassInfrastructure {
			ps.add("%s: class %q: must be %q (evaluated, the answer failed) or %q (not evaluated)", where, f.Class, ClassModel, ClassInfrastructure)
		}
		if len(f.Reason) > MaxReasonLength {
			ps.add("%s: reason longer than %d bytes", where, MaxReasonLength)
		}
	}
	for i, o := range r.Outputs {
		if o == "" {
			ps.add("outputs[%d]: empty", i)
		}
	}
	if r.StartedAt != nil && r.FinishedAt != nil && r.FinishedAt.Before(*r.StartedAt) {
		ps.add("finishedAt %s is before startedAt %s", r.FinishedAt.Format(time.RFC3339), r.StartedAt.Format(time.RFC3339))
	}
}

// validate checks the type and a's fields.
func (a *Attempt) validate(ps *problems, apiVersion, kind, wantKind string) {
	if apiVersion != APIVersion || kind != wantKind {
		ps.add("expected apiVersion %q and kind %q, found apiVersion %q and kind %q", APIVersion, wantKind, apiVersion, kind)
	}
	m := a.Manifest
	if m.Name == "" {
		ps.add("manifest.name: required")
	}
	if m.Revision == "" && m.Hash == "" {
		ps.add("manifest: give revision or hash (both, preferably)")
	}
	if m.Hash != "" && !shards.ValidHash(m.Hash) {
		ps.add("manifest.hash %q: must be \"sha256:\" and 64 lowercase hex digits", m.Hash)
	}
	if msg := shards.ValidateShardID(a.ShardID); msg != "" {
		ps.add("shardID %q: %s", a.ShardID, msg)
	}
	if a.AttemptID == "" {
		ps.add("attemptID: required (the pod UID, or pod name and restart count)")
	} else if len(a.AttemptID) > 253 {
		ps.add("attemptID: longer than 253 characters")
	}
	if a.Job.Name == "" {
		ps.add("job.name: required")
	}
	if a.CompletionIndex < 0 {
		ps.add("completionIndex %d is negative", a.CompletionIndex)
	}
	if a.Assigned.Count < 0 {
		ps.add("assigned.count %d is negative", a.Assigned.Count)
	}
	if !shards.ValidHash(a.Assigned.Digest) {
		ps.add("assigned.digest %q: must be \"sha256:\" and 64 lowercase hex digits (sha256sum of the shard file)", a.Assigned.Digest)
	}
}
