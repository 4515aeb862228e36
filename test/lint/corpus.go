// Package lintcorpus holds what the lint corpus tests share: reading the corpus manifests and
// their expectations, running `kubectl create --dry-run=server` on one and parsing what kubectl
// answers, and the recorded verdicts file (corpus/verdicts.json).
//
// The corpus proves that lint's severity "error" means exactly "the API server rejects this":
// every manifest in corpus/ has the API server's recorded verdict, pkg/lint's unit test checks
// lint against those verdicts offline, and the e2e test (test/e2e/lint_corpus_test.go) re-checks
// every manifest against a live API server of the mirrored release (pkg/version).
package lintcorpus

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// VerdictsFile is the name of the recorded verdicts in the corpus directory.
const VerdictsFile = "verdicts.json"

// ExpectAnnotation carries the expectation of a JSON manifest (JSON has no comments).
const ExpectAnnotation = "lint.indexed.kubectl.io/expect"

// Verdicts is the content of verdicts.json.
type Verdicts struct {
	// Kubernetes is the version of the API server (and kubectl) that gave the verdicts.
	Kubernetes string `json:"kubernetes"`
	// Command is how each verdict was obtained.
	Command string `json:"command"`
	// Verdicts by corpus file name.
	Verdicts map[string]Verdict `json:"verdicts"`
}

// Verdict is what kubectl create --dry-run=server answered for one manifest.
type Verdict struct {
	// Verdict is "accepted" (exit 0) or "rejected".
	Verdict string `json:"verdict"`
	// By says who refused: "server" (a validation or decoding error from the API server),
	// "server-crash" (the API server failed without an answer), or "kubectl" (kubectl refused
	// the input before sending it: unparsable, no kind, unknown apiVersion).
	By string `json:"by,omitempty"`
	// Causes are the field errors of an Invalid response, one per line, as kubectl prints them.
	Causes []string `json:"causes,omitempty"`
	// Errors are the other error lines kubectl printed.
	Errors []string `json:"errors,omitempty"`
	// Warnings are the API server's warnings (kubectl's "Warning: " lines), without the prefix.
	Warnings []string `json:"warnings,omitempty"`
}

// Rejected reports whether kubectl create failed.
func (v Verdict) Rejected() bool { return v.Verdict == "rejected" }

// Files returns the corpus manifests in dir (YAML and JSON), sorted.
func Files(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		switch filepath.Ext(e.Name()) {
		case ".yaml", ".yml", ".json":
			if e.Name() != VerdictsFile {
				out = append(out, e.Name())
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// Expectation is what a corpus manifest declares about itself.
type Expectation struct {
	// Rules are the IDs of every error and warning rule lint must report, no more, no fewer.
	Rules []string
	// Flags are extra lint flags (--kube-version=X, and --queues=FILE relative to the corpus).
	Flags []string
	// Description is the first comment line.
	Description string
}

var expectAnnotationRE = regexp.MustCompile(`"` + regexp.QuoteMeta(ExpectAnnotation) + `":\s*"([^"]*)"`)

// ReadExpectation reads the "# expect: a, b" (or "none") and "# flags: ..." header comments of
// a YAML manifest, or the expectation annotation of a JSON one.
func ReadExpectation(path string) (Expectation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Expectation{}, err
	}
	var e Expectation
	found := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "#") {
			break
		}
		text := strings.TrimSpace(strings.TrimPrefix(line, "#"))
		switch {
		case strings.HasPrefix(text, "expect:"):
			e.Rules, found = splitList(strings.TrimPrefix(text, "expect:")), true
		case strings.HasPrefix(text, "flags:"):
			e.Flags = strings.Fields(strings.TrimPrefix(text, "flags:"))
		case e.Description == "":
			e.Description = text
		}
	}
	if !found {
		if m := expectAnnotationRE.FindSubmatch(data); m != nil {
			e.Rules, found = splitList(string(m[1])), true
		}
	}
	if !found {
		return e, fmt.Errorf("%s: no \"# expect:\" header (or %s annotation)", path, ExpectAnnotation)
	}
	return e, nil
}

func splitList(s string) []string {
	s = strings.TrimSpace(s)
	if s == "none" || s == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// LoadVerdicts reads verdicts.json.
func LoadVerdicts(path string) (*Verdicts, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v := &Verdicts{}
	if err := json.Unmarshal(data, v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// Save writes verdicts.json, indented, keys sorted.
func (v *Verdicts) Save(path string) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// CreateArgs are the kubectl arguments that obtain a verdict for file in namespace.
func CreateArgs(file, namespace string) []string {
	return []string{"create", "--dry-run=server", "-f", file, "-n", namespace, "-o", "name"}
}

// Check runs kubectl create --dry-run=server on file and returns its verdict. err is set only
// when kubectl could not be run at all.
func Check(ctx context.Context, kubectl, kubeconfig, namespace, file string) (Verdict, error) {
	cmd := exec.CommandContext(ctx, kubectl, CreateArgs(file, namespace)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return Verdict{}, fmt.Errorf("running %s: %w", kubectl, err)
		}
		code = exit.ExitCode()
	}
	return ParseKubectl(stderr.String(), code), nil
}

var invalidRE = regexp.MustCompile(`^The [A-Za-z]+ "[^"]*" is invalid: ?(.*)$`)

// ParseKubectl turns kubectl create's stderr and exit code into a verdict. File names, server
// addresses and UIDs are replaced by placeholders so that a verdict does not depend on where
// or when it was recorded.
func ParseKubectl(stderr string, exitCode int) Verdict {
	v := Verdict{Verdict: "accepted"}
	if exitCode != 0 {
		v.Verdict = "rejected"
	}
	for _, line := range strings.Split(stderr, "\n") {
		switch {
		case line == "" || line == "ensure CRDs are installed first":
		case strings.HasPrefix(line, "Warning: "):
			v.Warnings = append(v.Warnings, strings.TrimPrefix(line, "Warning: "))
		case invalidRE.MatchString(line):
			v.By = "server"
			if rest := invalidRE.FindStringSubmatch(line)[1]; rest != "" {
				v.Causes = append(v.Causes, NormalizeMessage(rest))
			}
		case strings.HasPrefix(line, "* "):
			v.Causes = append(v.Causes, NormalizeMessage(strings.TrimPrefix(line, "* ")))
		default:
			line = normalizeErrorLine(line)
			v.Errors = append(v.Errors, line)
			switch {
			case strings.Contains(line, "INTERNAL_ERROR"):
				v.By = "server-crash"
			case strings.HasPrefix(line, "Error from server"):
				if v.By == "" {
					v.By = "server"
				}
			case v.By == "":
				v.By = "kubectl"
			}
		}
	}
	if exitCode == 0 {
		v.By = ""
	}
	return v
}

var (
	serverURLRE  = regexp.MustCompile(`https?://[^/" ]+`)
	fileQuotedRE = regexp.MustCompile(`(creating|validating|from) "[^"]*"`)
	parsingRE    = regexp.MustCompile(`error parsing [^:]+:`)
	uidRE        = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
)

func normalizeErrorLine(line string) string {
	line = serverURLRE.ReplaceAllString(line, "https://SERVER")
	line = fileQuotedRE.ReplaceAllString(line, `$1 "FILE"`)
	line = parsingRE.ReplaceAllString(line, "error parsing FILE:")
	return line
}

// NormalizeMessage makes a field error comparable across runs: UIDs the server generates
// become <uid>.
func NormalizeMessage(s string) string {
	return uidRE.ReplaceAllString(s, "<uid>")
}
