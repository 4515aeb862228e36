package lint

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
)

// The JUnit XML that CI systems read (Ant's junit task's format, as Jenkins, GitLab and the
// GitHub test-reporter actions parse it): one testsuite per input file, one testcase per object
// read, a failure for each error or warning finding of the object, skipped for an object lint
// does not check, and the object's info notes in its system-out.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	File      string         `xml:"file,attr,omitempty"`
	Line      int            `xml:"line,attr,omitempty"`
	Time      string         `xml:"time,attr"`
	Skipped   *junitSkipped  `xml:"skipped,omitempty"`
	Failures  []junitFailure `xml:"failure"`
	SystemOut string         `xml:"system-out,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes report as JUnit XML: a test case per object (Report.Objects), failing
// with one failure per error or warning finding; info findings go to the case's system-out.
// Every finding is of an object the report lists (Linter.Keep keeps both).
func WriteJUnit(w io.Writer, report *Report) error {
	type key struct {
		file string
		doc  int
		obj  string
	}
	byObject := map[key][]Finding{}
	for _, f := range report.Findings {
		k := key{f.File, f.Document, f.Object}
		byObject[k] = append(byObject[k], f)
	}
	out := junitSuites{Name: "kubectl-indexed lint"}
	suiteOf := map[string]int{}
	addCase := func(file string, c junitCase) {
		i, ok := suiteOf[file]
		if !ok {
			name := file
			if name == "" || name == "-" {
				name = "(standard input)"
			}
			i = len(out.Suites)
			suiteOf[file] = i
			out.Suites = append(out.Suites, junitSuite{Name: name, Time: "0"})
		}
		s := &out.Suites[i]
		s.Tests++
		out.Tests++
		switch {
		case len(c.Failures) > 0:
			s.Failures++
			out.Failures++
		case c.Skipped != nil:
			s.Skipped++
			out.Skipped++
		}
		s.Cases = append(s.Cases, c)
	}
	// One case per object: two List items of one document with the same name are one case.
	seen := map[key]bool{}
	for _, o := range report.Objects {
		if k := (key{o.File, o.Document, o.Name}); !seen[k] {
			seen[k] = true
			addCase(o.File, objectCase(o.File, o.Name, o.Document, o.Line, byObject[k]))
		}
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func objectCase(file, name string, doc, line int, findings []Finding) junitCase {
	if name == "" {
		name = "document " + strconv.Itoa(doc)
	}
	c := junitCase{Name: name, Classname: file, Time: "0", Line: line}
	if file != "" && file != "-" {
		c.File = file
	}
	for _, f := range findings {
		where := f.File
		if f.Line > 0 {
			where += ":" + strconv.Itoa(f.Line)
		}
		if f.Path != "" {
			where += " " + f.Path
		}
		switch f.Severity {
		case SeverityError, SeverityWarning:
			text := fmt.Sprintf("%s: %s [%s]\n%s\n", f.Severity, where, f.Rule, f.Message)
			if f.Why != "" {
				text += "Why: " + f.Why + "\n"
			}
			if f.Fix != "" {
				text += "Fix: " + f.Fix + "\n"
			}
			c.Failures = append(c.Failures, junitFailure{Message: f.Message, Type: f.Rule, Text: text})
		default:
			if f.Rule == RuleSkippedKind {
				c.Skipped = &junitSkipped{Message: f.Message}
				continue
			}
			c.SystemOut += fmt.Sprintf("info: %s [%s] %s\n", where, f.Rule, f.Message)
		}
	}
	if len(c.Failures) > 0 {
		c.Skipped = nil
	}
	return c
}
