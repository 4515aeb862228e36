// Package lint checks Jobs and CronJobs before they are submitted: every finding of severity
// error is something the mirrored Kubernetes API server (pkg/version) rejects (mirrored by pkg/jobspec), every
// warning is accepted by the server but hurts at run time, and info notes are worth knowing.
// It takes typed objects or documents read by pkg/source and returns findings; it never talks
// to a cluster.
package lint

import (
	"cmp"
	"slices"
)

// Severity of a finding.
type Severity string

const (
	// SeverityError: the mirrored API server (pkg/version) rejects the object.
	SeverityError Severity = "error"
	// SeverityWarning: the server accepts the object, but it hurts at run time.
	SeverityWarning Severity = "warning"
	// SeverityInfo: worth knowing, nothing to fix necessarily.
	SeverityInfo Severity = "info"
)

// severityWords is how each output states a severity.
type severityWords struct {
	rank   int    // Rank
	sarif  string // SARIF level
	github string // GitHub Actions workflow command
	color  string // ANSI colour of the text report
}

var severities = map[Severity]severityWords{
	SeverityError:   {3, "error", "error", "\x1b[31m"},
	SeverityWarning: {2, "warning", "warning", "\x1b[33m"},
	SeverityInfo:    {1, "note", "notice", "\x1b[36m"},
}

// Rank orders severities: error 3, warning 2, info 1, anything else 0.
func (s Severity) Rank() int { return severities[s].rank }

// ParseSeverity returns the severity named s, or false.
func ParseSeverity(s string) (Severity, bool) {
	if sev := Severity(s); sev.Rank() > 0 {
		return sev, true
	}
	return "", false
}

// Finding is one result of lint. Its JSON field names are a public contract (docs/lint.md).
type Finding struct {
	// Rule is the stable ID of the rule (see Rules).
	Rule string `json:"rule"`
	// Severity is error, warning or info.
	Severity Severity `json:"severity"`
	// Message says what is wrong, with the numbers of this object. For errors it is the API
	// server's own message (`<path>: <type>: <value>: <detail>`).
	Message string `json:"message"`
	// Path is the field path the finding is about ("spec.backoffLimit"), "" for the whole object.
	Path string `json:"path"`
	// File is the input file ("-" for stdin), "" when the object did not come from a file.
	File string `json:"file"`
	// Line is the 1-based line of Path (or of its nearest present parent) in File, 0 if unknown.
	Line int `json:"line"`
	// Document is the 1-based position of the YAML document (or JSON value) in File, 0 if unknown.
	Document int `json:"document,omitempty"`
	// Object names the object: "Job/name", "CronJob/name" ("name*" for a generateName prefix).
	Object string `json:"object"`
	// Namespace is the object's metadata.namespace, if set.
	Namespace string `json:"namespace,omitempty"`
	// Why explains the harm (from the rule).
	Why string `json:"why,omitempty"`
	// Fix says what to change (from the rule).
	Fix string `json:"fix,omitempty"`
}

// HasErrors reports whether any finding has severity error: the API server would reject the
// object.
func HasErrors(findings []Finding) bool {
	return slices.ContainsFunc(findings, func(f Finding) bool { return f.Severity == SeverityError })
}

// Sort orders findings deterministically: by file, document, line, then severity (errors
// first), rule, path and message.
func Sort(findings []Finding) {
	slices.SortStableFunc(findings, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Document, b.Document),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(b.Severity.Rank(), a.Severity.Rank()),
			cmp.Compare(a.Object, b.Object),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Message, b.Message),
		)
	})
}
