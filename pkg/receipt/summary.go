package receipt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Summary is the compact form of a receipt that a worker writes to its container's termination
// message (/dev/termination-log), so that status and reconcile can read it from the pod with no
// other storage: counts, the digest of the assigned cases and where the results and the full
// receipt are. It names no case. Encoded, it must fit in MaxTerminationMessage bytes.
//
// apiVersion comes first and kind last, so that a message cut at either end still says what it
// was: the kubelet keeps the last 4,096 bytes of a longer message (the beginning is lost), and
// its status manager then keeps the first 12,288 / (containers + init containers) bytes of each
// container's message (normalizeStatus; the end is lost in a pod of four or more containers).
type Summary struct {
	APIVersion string `json:"apiVersion"`
	Attempt
	// Completed counts the results evaluated without failure; Failed the failures by class.
	Completed int          `json:"completed"`
	Failed    FailedCounts `json:"failed"`
	// Reason is why cases failed for infrastructure (the first reason, when several).
	Reason string `json:"reason,omitempty"`
	// Outputs are where the results are; Receipt where the full receipt is (URIs).
	Outputs    []string   `json:"outputs,omitempty"`
	Receipt    string     `json:"receipt,omitempty"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	Kind       string     `json:"kind"`
}

// FailedCounts counts failed results by class.
type FailedCounts struct {
	Model          int `json:"model"`
	Infrastructure int `json:"infrastructure"`
}

// Evaluated is the number of results evaluated (completed, or failed for the model).
func (s *Summary) Evaluated() int { return s.Completed + s.Failed.Model }

// Summarize returns the summary of r (Receipt, the full receipt's location, is left to the
// caller).
func Summarize(r *Receipt) *Summary {
	s := &Summary{APIVersion: APIVersion, Kind: SummaryKind, Attempt: r.Attempt, Completed: len(r.Completed),
		Outputs: r.Outputs, FinishedAt: r.FinishedAt}
	for _, f := range r.Failed {
		if f.Class == ClassModel {
			s.Failed.Model++
			continue
		}
		s.Failed.Infrastructure++
		if s.Reason == "" {
			s.Reason = f.Reason
		}
	}
	return s
}

// Encode returns the summary as one line of compact JSON. It fails when the result is longer
// than MaxTerminationMessage: the kubelet would keep only its last 4,096 bytes.
func Encode(s *Summary) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	b := bytes.TrimRight(buf.Bytes(), "\n")
	if len(b) > MaxTerminationMessage {
		return nil, fmt.Errorf("the summary is %d bytes: a termination message keeps at most %d; shorten the outputs or the reason", len(b), MaxTerminationMessage)
	}
	return b, nil
}

// ErrNotSummary is returned by Decode for a termination message that is not a receipt summary
// at all: empty, a message of the worker's own, or the tail of its log
// (terminationMessagePolicy FallbackToLogsOnError).
var ErrNotSummary = errors.New("not a receipt summary")

// isSummaryLike reports whether msg claims to be a summary, or what is left of one: its kind
// (at the end) or its apiVersion (at the start) survives a cut at either end.
func isSummaryLike(msg string) bool {
	return strings.Contains(msg, SummaryKind) || strings.Contains(msg, APIVersion)
}

// Decode reads a termination message. It returns ErrNotSummary when the message does not
// claim to be a summary (it mentions neither ShardReceiptSummary nor the apiVersion), an *Error when it does but
// cannot be used (Truncated when it was cut: the kubelet keeps the last 4,096 bytes of a longer
// message, so the beginning is lost, and a share of 12 KiB per container, so the end may be), and
// the summary otherwise.
func Decode(source, message string) (*Summary, error) {
	msg := strings.TrimSpace(message)
	if !isSummaryLike(msg) {
		return nil, ErrNotSummary
	}
	cut := len(message) >= MaxTerminationMessage
	if !strings.HasPrefix(msg, "{") {
		return nil, &Error{Source: source, Truncated: true, Problems: []string{
			fmt.Sprintf("the message is the end of a %s but does not start with '{': its beginning is missing (%d bytes; the kubelet keeps the last %d bytes of a longer message)", SummaryKind, len(message), MaxTerminationMessage)}}
	}
	var s Summary
	if err := decodeStrict([]byte(msg), &s); err != nil {
		trunc := errors.Is(err, errTruncated) || cut
		prob := err.Error()
		if cut {
			prob += fmt.Sprintf(" (the message is %d bytes, the most the kubelet keeps: it was probably cut)", len(message))
		}
		return nil, &Error{Source: source, Truncated: trunc, Problems: []string{prob}}
	}
	ps := &problems{}
	s.validate(ps, s.APIVersion, s.Kind, SummaryKind) // the embedded Attempt's
	if s.Completed < 0 || s.Failed.Model < 0 || s.Failed.Infrastructure < 0 {
		ps.add("counts must not be negative")
	}
	if len(ps.list) > 0 {
		return nil, &Error{Source: source, Problems: ps.list}
	}
	return &s, nil
}
