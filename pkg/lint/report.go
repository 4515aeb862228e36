package lint

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// Report versioning: the JSON/YAML contract of `kubectl indexed lint -o json|yaml`.
const (
	ReportAPIVersion = contract.APIVersion
	ReportKind       = contract.LintReport
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
	// PrepareDBFiles are the files, sorted, that hold one object (a List item counts as one),
	// a Job or CronJob with a prepare-db-mode finding, and no error: the files the hints
	// simulate. simulate reads one Job per file and rejects a Job the server would reject, and
	// kubectl patch --local, the fix, patches every object of the file (and prints them as one
	// broken YAML document). Lint's own counts say so without reading the file again (the whole
	// stream, parsed and decoded a second time, was most of lint's time and memory on a stream
	// of 10,000 Jobs). Not part of the JSON/YAML contract.
	PrepareDBFiles []string `json:"-"`
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

// Linter builds a Report from documents: Check lints one, from any number of goroutines at
// once, and Keep adds what Check found to the report, one document at a time, in input order
// (see source.ForEachInOrder). It keeps the findings, not the documents; with StreamText it
// prints the findings instead of keeping them.
type Linter struct {
	opts   Options
	mu     sync.Mutex
	report *Report
	// stream, when set, takes the findings of each document as Keep gets them.
	stream    *bufio.Writer
	streamOpt TextOptions
	streamErr error
	// pending holds the findings of the YAML document being kept (pendingFile, pendingDoc).
	pending     []Finding
	pendingFile string
	pendingDoc  int
	prepareDB   map[string]bool
	errorFiles  map[string]bool
	objects     map[string]int // per file
}

// NewLinter returns a Linter for opts, its report empty.
func NewLinter(opts Options) *Linter {
	r := &Report{APIVersion: ReportAPIVersion, Kind: ReportKind, KubeVersion: opts.kubeVersion().String(),
		Findings: []Finding{}}
	return &Linter{opts: opts, report: r, prepareDB: map[string]bool{}, errorFiles: map[string]bool{},
		objects: map[string]int{}}
}

// StreamText makes Keep print each document's findings to w as PrintText prints them instead
// of keeping them in the report, which then holds the counts, the hint files and no findings
// or objects (PrintSummary ends the text). Documents must then reach Keep in file and document
// order, and the files in the order of their names, as Report sorts them: one input.
func (l *Linter) StreamText(w io.Writer, opts TextOptions) {
	l.stream, l.streamOpt = bufio.NewWriterSize(w, 64<<10), opts
}

// Checked is what Check found in one document, for Keep.
type Checked struct {
	findings []Finding
	summary  Summary
	object   Object
}

// Check lints one document.
func (l *Linter) Check(d *source.Document) Checked {
	name := d.Kind() + "/" + d.Name()
	if d.Kind() == "" {
		name = ""
	}
	c := Checked{object: Object{File: d.File, Document: d.Doc, Line: d.Line, Item: d.Item, Name: name}}
	c.findings = lintDocument(d, name, l.opts, &c.summary)
	return c
}

// Keep adds a checked document to the report.
func (l *Linter) Keep(c Checked) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.report
	r.Summary.Documents += c.summary.Documents
	r.Summary.Checked += c.summary.Checked
	r.Summary.Skipped += c.summary.Skipped
	r.Summary.Unreadable += c.summary.Unreadable
	if c.object.File != "" {
		l.objects[c.object.File]++
	}
	for _, f := range c.findings {
		if f.Severity == SeverityError && f.File != "" {
			l.errorFiles[f.File] = true
		}
		if f.Rule == RulePrepareDB && f.File != "" {
			l.prepareDB[f.File] = true
		}
	}
	if l.stream == nil {
		r.Findings = append(r.Findings, c.findings...)
		r.Objects = append(r.Objects, c.object)
		return
	}
	// The items of a List are documents of one YAML document (or JSON value): their findings
	// are sorted together, as Report sorts them, and printed when the next one starts.
	if c.object.File != l.pendingFile || c.object.Document != l.pendingDoc {
		l.printPending()
		l.pendingFile, l.pendingDoc = c.object.File, c.object.Document
	}
	l.pending = append(l.pending, c.findings...)
}

// printPending prints the findings of the last document kept, sorted, and counts them.
func (l *Linter) printPending() {
	Sort(l.pending)
	for i := range l.pending {
		l.report.Summary.count(l.pending[i].Severity)
		if l.streamErr == nil {
			_, l.streamErr = l.stream.WriteString(FormatFinding(&l.pending[i], l.streamOpt))
		}
	}
	l.pending = l.pending[:0]
}

// Report returns the report of every document added so far, findings sorted and counted.
// With StreamText, it flushes the findings printed and returns the first error writing them.
func (l *Linter) Report() (*Report, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.report
	r.PrepareDBFiles = slices.DeleteFunc(slices.Sorted(maps.Keys(l.prepareDB)), func(f string) bool {
		return l.errorFiles[f] || l.objects[f] != 1
	})
	if l.stream != nil {
		l.printPending()
		if l.streamErr == nil {
			l.streamErr = l.stream.Flush()
		}
		return r, l.streamErr
	}
	Sort(r.Findings)
	slices.SortStableFunc(r.Objects, func(a, b Object) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Document, b.Document), cmp.Compare(a.Item, b.Item))
	})
	r.Summary.Errors, r.Summary.Warnings, r.Summary.Infos = 0, 0, 0
	for _, f := range r.Findings {
		r.Summary.count(f.Severity)
	}
	return r, nil
}

// count counts one finding of severity sev.
func (s *Summary) count(sev Severity) {
	switch sev {
	case SeverityError:
		s.Errors++
	case SeverityWarning:
		s.Warnings++
	case SeverityInfo:
		s.Infos++
	}
}

var (
	strictFieldRE = regexp.MustCompile(`field "([^"]*)"`)
	typeFieldRE   = regexp.MustCompile(`Go struct field [A-Za-z0-9_]+\.(\S+) of type`)
)

// lintDocument returns the findings of one document, the object named object, and counts it
// in sum.
func lintDocument(d *source.Document, object string, opts Options, sum *Summary) []Finding {
	var out []Finding
	sum.Documents++
	locate := func(fs []Finding) {
		for i := range fs {
			fs[i].File, fs[i].Document = d.File, d.Doc
			fs[i].Line = d.LineOf(fs[i].Path)
			out = append(out, fs[i])
		}
	}
	c := &checker{opts: opts, object: object, ns: d.Namespace()}
	// at places the findings about the whole document at line.
	at := func(line int) {
		for i := range c.findings {
			c.findings[i].File, c.findings[i].Document, c.findings[i].Line = d.File, d.Doc, line
		}
		out = append(out, c.findings...)
		c.findings = nil
	}
	var dup *source.DuplicateKeyError
	if errors.As(d.Err, &dup) && d.Object != nil {
		c.add(RuleDuplicateField, SeverityWarning, "", duplicateWords(dup))
		line, ok := source.ErrorLine(dup.Error())
		if !ok {
			line = d.Line
		}
		at(line)
		lenient := *d
		lenient.Err = nil
		d = &lenient
	}
	if d.Err != nil {
		sum.Unreadable++
		c.add(RuleUnreadable, SeverityError, "", d.Err.Error())
		// The parser names the line it stopped at (a tab, a bad indentation): point there.
		line, ok := source.SyntaxErrorLine(d.Err.Error())
		if !ok || line < d.Line {
			line = d.Line
		}
		at(line)
		return out
	}
	kind, apiVersion := d.Kind(), d.APIVersion()
	var fs []Finding // what CheckJob or CheckCronJob finds
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
	case kind != "Job" && kind != "CronJob" && strings.HasPrefix(apiVersion, "batch/"):
		// The batch group serves Job and CronJob only: kubectl rejects any other kind there
		// ("no matches for kind"), case and plural included.
		sum.Checked++
		msg := fmt.Sprintf("no matches for kind %q in version %q: the batch group serves Job and CronJob only", kind, apiVersion)
		if want := batchKind(kind); want != "" {
			msg += fmt.Sprintf(" (kinds are singular and case-sensitive: did you mean %q?)", want)
		}
		c.add(RuleInvalidObject, SeverityError, "kind", msg)
	case kind != "Job" && kind != "CronJob":
		sum.Skipped++
		c.add(RuleSkippedKind, SeverityInfo, "", fmt.Sprintf("%s %s is not a Job or CronJob: skipped", apiVersion, kind))
	case apiVersion != "batch/v1":
		sum.Checked++
		c.add(RuleInvalidObject, SeverityError, "apiVersion", fmt.Sprintf("no matches for kind %q in version %q: %s is served as batch/v1", kind, apiVersion, kind))
	default:
		sum.Checked++
		var strict []string
		var err error
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
		}
		for _, s := range strict { // none when err is set
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
					fs = slices.DeleteFunc(fs, func(f Finding) bool { return f.Rule == RulePrepareDB })
				}
			}
			c.add(RuleUnknownField, SeverityError, path, s)
		}
	}
	locate(c.findings)
	locate(fs)
	return out
}
