package lint

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// Report versioning: the JSON/YAML contract of `kubectl indexed lint -o json|yaml`.
const (
	ReportAPIVersion = "indexed.kubectl.io/v1alpha1"
	ReportKind       = "LintReport"
)

// Report is the result of linting a set of documents.
type Report struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// KubeVersion is the --kube-version the feature checks used.
	KubeVersion string `json:"kubeVersion"`
	// Summary counts objects and findings.
	Summary Summary `json:"summary"`
	// Findings, in file, document and line order. Never null.
	Findings []Finding `json:"findings"`
	// Hints are advice that goes with some findings: commands to run next. They are not
	// findings (no severity, no effect on the exit code); lint --show-hints=false leaves them
	// out. Omitted when there is none.
	Hints []Hint `json:"hints,omitempty"`
	// Objects lists every document read, in file and document order, findings or not: the
	// JUnit report has a test case for each. Not part of the JSON/YAML contract.
	Objects []Object `json:"-"`
}

// Hint is advice for one file: what running its commands shows.
type Hint struct {
	// Rule is the ID of the finding the hint goes with.
	Rule string `json:"rule"`
	// File is the file of that finding.
	File string `json:"file"`
	// Message says what the commands show.
	Message string `json:"message"`
	// Commands are shell commands, to be run in order.
	Commands []string `json:"commands"`
}

// Object is one document lint read.
type Object struct {
	// File and Document are as in Finding; Line is the document's first line.
	File     string
	Document int
	Line     int
	// Item is the 0-based position in a List, -1 outside one.
	Item int
	// Name is "Kind/name" as in Finding.Object, "" when the document has no kind.
	Name string
}

// Summary counts what a Report covers.
type Summary struct {
	// Documents is the number of objects read (List items count one each), readable or not.
	Documents int `json:"documents"`
	// Checked is the number of Jobs and CronJobs checked.
	Checked int `json:"checked"`
	// Skipped is the number of objects of other kinds.
	Skipped int `json:"skipped"`
	// Unreadable is the number of documents that could not be parsed at all.
	Unreadable int `json:"unreadable"`
	// Errors, Warnings and Infos count the findings reported, by severity.
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

// NewReport returns an empty report for opts.
func NewReport(opts Options) *Report {
	return &Report{APIVersion: ReportAPIVersion, Kind: ReportKind, KubeVersion: opts.kubeVersion().String(), Findings: []Finding{}}
}

// Lint checks every document: Jobs and CronJobs fully, other kinds are skipped with an info
// note, unreadable documents become unreadable-document errors. Findings point at file,
// document and line.
func Lint(docs []source.Document, opts Options) *Report {
	l := NewLinter(opts)
	for i := range docs {
		l.Add(&docs[i])
	}
	return l.Report()
}

// Linter builds a Report from documents handed to it one at a time, from any number of
// goroutines at once (see source.ForEach); it keeps the findings, not the documents.
type Linter struct {
	opts   Options
	mu     sync.Mutex
	report *Report
}

// NewLinter returns a Linter for opts.
func NewLinter(opts Options) *Linter {
	return &Linter{opts: opts, report: NewReport(opts)}
}

// Add lints one document.
func (l *Linter) Add(d *source.Document) {
	var s Summary
	fs := lintDocument(d, l.opts, &s)
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.report
	r.Findings = append(r.Findings, fs...)
	r.Summary.Documents += s.Documents
	r.Summary.Checked += s.Checked
	r.Summary.Skipped += s.Skipped
	r.Summary.Unreadable += s.Unreadable
	name := d.Kind() + "/" + d.Name()
	if d.Kind() == "" {
		name = ""
	}
	r.Objects = append(r.Objects, Object{File: d.File, Document: d.Doc, Line: d.Line, Item: d.Item, Name: name})
}

// Report returns the report of every document added so far, findings sorted and counted.
func (l *Linter) Report() *Report {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.report
	Sort(r.Findings)
	slices.SortStableFunc(r.Objects, func(a, b Object) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Document, b.Document), cmp.Compare(a.Item, b.Item))
	})
	r.Summary.Errors, r.Summary.Warnings, r.Summary.Infos = 0, 0, 0
	for _, f := range r.Findings {
		switch f.Severity {
		case SeverityError:
			r.Summary.Errors++
		case SeverityWarning:
			r.Summary.Warnings++
		case SeverityInfo:
			r.Summary.Infos++
		}
	}
	return r
}

var (
	lineRE        = regexp.MustCompile(`line (\d+)`)
	strictFieldRE = regexp.MustCompile(`field "([^"]*)"`)
	typeFieldRE   = regexp.MustCompile(`Go struct field [A-Za-z0-9_]+\.(\S+) of type`)
)

// lintDocument returns the findings of one document and counts it in sum.
func lintDocument(d *source.Document, opts Options, sum *Summary) []Finding {
	var out []Finding
	sum.Documents++
	object := d.Kind() + "/" + d.Name()
	if d.Kind() == "" {
		object = ""
	}
	locate := func(fs []Finding) {
		for i := range fs {
			fs[i].File, fs[i].Document = d.File, d.Doc
			fs[i].Line = d.LineOf(fs[i].Path)
			out = append(out, fs[i])
		}
	}
	c := &checker{opts: opts, object: object, ns: d.Namespace()}
	var dup *source.DuplicateKeyError
	if errors.As(d.Err, &dup) && d.Object != nil {
		c.add(RuleDuplicateField, SeverityWarning, "", duplicateWords(dup))
		for i := range c.findings {
			c.findings[i].File, c.findings[i].Document, c.findings[i].Line = d.File, d.Doc, d.Line
			if m := lineRE.FindStringSubmatch(dup.Error()); m != nil {
				c.findings[i].Line, _ = strconv.Atoi(m[1])
			}
		}
		out = append(out, c.findings...)
		c.findings = nil
		lenient := *d
		lenient.Err = nil
		d = &lenient
	}
	if d.Err != nil {
		sum.Unreadable++
		c.add(RuleUnreadable, SeverityError, "", d.Err.Error())
		for i := range c.findings {
			c.findings[i].File, c.findings[i].Document, c.findings[i].Line = d.File, d.Doc, d.Line
			// The parser names the line it stopped at (a tab, a bad indentation): point there.
			if m := yamlLineRE.FindStringSubmatch(d.Err.Error()); m != nil {
				if n, err := strconv.Atoi(m[1]); err == nil && n >= d.Line {
					c.findings[i].Line = n
				}
			}
		}
		out = append(out, c.findings...)
		return out
	}
	kind, apiVersion := d.Kind(), d.APIVersion()
	switch {
	case kind == "" || apiVersion == "":
		var missing string
		switch {
		case kind == "" && apiVersion == "":
			missing = "apiVersion and kind are"
		case kind == "":
			missing = "kind is"
		default:
			missing = "apiVersion is"
		}
		c.add(RuleInvalidObject, SeverityError, "", fmt.Sprintf("%s not set: kubectl cannot tell what this object is", missing))
		locate(c.findings)
		return out
	case kind != "Job" && kind != "CronJob" && apiGroup(apiVersion) == "batch":
		// The batch group serves Job and CronJob only: kubectl rejects any other kind there
		// ("no matches for kind"), case and plural included.
		sum.Checked++
		msg := fmt.Sprintf("no matches for kind %q in version %q: the batch group serves Job and CronJob only", kind, apiVersion)
		if want := batchKind(kind); want != "" {
			msg += fmt.Sprintf(" (kinds are singular and case-sensitive: did you mean %q?)", want)
		}
		c.add(RuleInvalidObject, SeverityError, "kind", msg)
		locate(c.findings)
		return out
	case kind != "Job" && kind != "CronJob":
		sum.Skipped++
		c.add(RuleSkippedKind, SeverityInfo, "", fmt.Sprintf("%s %s is not a Job or CronJob: skipped", apiVersion, kind))
		locate(c.findings)
		return out
	case apiVersion != "batch/v1":
		sum.Checked++
		c.add(RuleInvalidObject, SeverityError, "apiVersion", fmt.Sprintf("no matches for kind %q in version %q: %s is served as batch/v1", kind, apiVersion, kind))
		locate(c.findings)
		return out
	}
	sum.Checked++
	var (
		strict []string
		err    error
		fs     []Finding
	)
	if kind == "Job" {
		job := &batchv1.Job{}
		if strict, err = d.DecodeStrict(job); err == nil {
			fs = CheckJob(job, opts)
		}
	} else {
		cj := &batchv1.CronJob{}
		if strict, err = d.DecodeStrict(cj); err == nil {
			fs = CheckCronJob(cj, opts)
		}
	}
	if err != nil {
		c.add(RuleInvalidObject, SeverityError, "", err.Error())
		if m := typeFieldRE.FindStringSubmatch(err.Error()); m != nil {
			for i := range c.findings {
				c.findings[i].Path = m[1]
			}
		}
		locate(c.findings)
		return out
	}
	for _, s := range strict {
		path := ""
		if m := strictFieldRE.FindStringSubmatch(s); m != nil {
			path = m[1]
		}
		if strings.HasPrefix(s, "duplicate field") {
			c.add(RuleDuplicateField, SeverityWarning, path, s+": kubectl keeps the last value")
			continue
		}
		if guess := didYouMean(kind, path); guess != "" {
			s += fmt.Sprintf(": did you mean %q?", guess)
			if guess == "backoffLimitPerIndex" {
				// The prepare-db warning would rest on the misspelt field's absence.
				fs = dropRule(fs, RulePrepareDB)
			}
		}
		c.add(RuleUnknownField, SeverityError, path, s)
	}
	locate(c.findings)
	locate(fs)
	return out
}
