// Command doclinks checks that every relative link in the project's Markdown files resolves:
// the file or directory exists inside the repository and, for a link with a #fragment into a
// Markdown file, that file has a heading with that anchor (GitHub's rules: lower case,
// punctuation dropped, spaces to hyphens, -1, -2, ... for repeats). Links with a scheme
// (https:, mailto:) are not fetched. Links in fenced code blocks and code spans are not links.
//
//	go run ./hack/doclinks [ROOT]     (make doc-links; part of make check)
//
// It prints one line per broken link (file:line: target: why) and exits 1 if there is any.
// docs/incoming/ (notes waiting to be folded into docs/) is not checked.
package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	problems, files, err := Check(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "doclinks:", err)
		os.Exit(2)
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "doclinks: %d broken links in %d Markdown files\n", len(problems), files)
		os.Exit(1)
	}
	fmt.Printf("doclinks: every relative link and anchor of %d Markdown files resolves\n", files)
}

// Problem is one link that does not resolve.
type Problem struct {
	File   string // relative to the root, with slashes
	Line   int
	Target string
	Why    string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Target, p.Why)
}

// skipDirs are never searched for Markdown: version control, build output, tools, the local
// cluster's data, test data, and notes not yet folded into docs/.
var skipDirs = map[string]bool{".git": true, ".tools": true, "bin": true, "dist": true, ".cluster": true, "node_modules": true, "vendor": true, "testdata": true}

const incoming = "docs/incoming"

// Check reads every Markdown file under root and returns the links that do not resolve, sorted
// by file and line, and how many files it read.
func Check(root string) ([]Problem, int, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, 0, err
	}
	var files []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path != root && (skipDirs[d.Name()] || rel == incoming) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".md") {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	sort.Strings(files)
	anchors := map[string]map[string]bool{} // file -> anchors, read on demand
	anchorsOf := func(rel string) (map[string]bool, error) {
		if a, ok := anchors[rel]; ok {
			return a, nil
		}
		doc, err := parse(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		anchors[rel] = doc.anchors
		return doc.anchors, nil
	}
	var problems []Problem
	for _, rel := range files {
		doc, err := parse(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, 0, err
		}
		anchors[rel] = doc.anchors
		for _, l := range doc.links {
			if why := checkLink(root, rel, l.target, anchorsOf); why != "" {
				problems = append(problems, Problem{File: rel, Line: l.line, Target: l.target, Why: why})
			}
		}
	}
	return problems, len(files), nil
}

var (
	scheme       = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	lineFragment = regexp.MustCompile(`^L\d+(-L\d+)?$`)
)

// checkLink says why target, a link in file from (relative to root), does not resolve, or "".
func checkLink(root, from, target string, anchorsOf func(string) (map[string]bool, error)) string {
	if scheme.MatchString(target) || strings.HasPrefix(target, "//") {
		return ""
	}
	path, frag, _ := strings.Cut(target, "#")
	var rel string
	switch {
	case path == "":
		rel = from
	case strings.HasPrefix(path, "/"):
		rel = strings.TrimPrefix(filepath.ToSlash(filepath.Clean(path)), "/")
	default:
		rel = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(from), filepath.FromSlash(path))))
	}
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "points outside the repository"
	}
	info, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return "no such file or directory"
	}
	if frag == "" {
		return ""
	}
	if info.IsDir() || !strings.HasSuffix(rel, ".md") {
		if lineFragment.MatchString(frag) && !info.IsDir() {
			return "" // a line of a source file, as GitHub shows it
		}
		return "a #fragment into a file that is not Markdown"
	}
	a, err := anchorsOf(rel)
	if err != nil {
		return err.Error()
	}
	if !a[frag] {
		return fmt.Sprintf("%s has no heading with anchor #%s", rel, frag)
	}
	return ""
}

type link struct {
	line   int
	target string
}

type document struct {
	anchors map[string]bool
	links   []link
}

var (
	heading  = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$`)
	fence    = regexp.MustCompile("^ {0,3}(```|~~~)")
	codeSpan = regexp.MustCompile("`+[^`]*`+")
	// [text](target) and [text](target "title"); text may hold one level of brackets and
	// inline code; ![alt](image) matches too.
	inlineLink = regexp.MustCompile(`\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refDef     = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s+<?([^\s>]+)>?`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

func parse(path string) (document, error) {
	f, err := os.Open(path)
	if err != nil {
		return document{}, err
	}
	defer func() { _ = f.Close() }()
	doc := document{anchors: map[string]bool{}}
	seen := map[string]int{}
	inFence := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := fence.FindStringSubmatch(line); m != nil {
			switch {
			case inFence == "":
				inFence = m[1]
			case m[1] == inFence:
				inFence = ""
			}
			continue
		}
		if inFence != "" {
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			doc.anchors[m[1]] = true
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			slug := Slug(m[2])
			if k := seen[slug]; k > 0 {
				doc.anchors[fmt.Sprintf("%s-%d", slug, k)] = true
			} else {
				doc.anchors[slug] = true
			}
			seen[slug]++
		}
		if m := refDef.FindStringSubmatch(line); m != nil {
			doc.links = append(doc.links, link{n, m[1]})
			continue
		}
		text := codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(text, -1) {
			doc.links = append(doc.links, link{n, m[1]})
		}
	}
	return doc, sc.Err()
}

var mdLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// Slug is the anchor GitHub gives a heading: the rendered text in lower case, without
// characters other than letters, marks, digits, connector punctuation ('_'), spaces and
// hyphens, each space replaced by a hyphen.
func Slug(text string) string {
	text = mdLink.ReplaceAllString(text, "$1")
	text = strings.NewReplacer("`", "", "*", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.Is(unicode.Pc, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
