// Command krewmanifest renders and checks the krew manifest of kubectl indexed from the
// single template krew/indexed.yaml.tmpl and a goreleaser build in dist/ (see mk/dist.mk).
//
//	krewmanifest render  -dist dist -template krew/indexed.yaml.tmpl -o plugins/indexed.yaml
//	krewmanifest check   plugins/indexed.yaml...
//	krewmanifest compare-goreleaser -goreleaser dist/krew/indexed.yaml MANIFEST
//	krewmanifest compare-committed -committed plugins/indexed.yaml GENERATED
//	krewmanifest serve   -dist dist -template krew/indexed.yaml.tmpl -- COMMAND ARGS...
//
// serve renders the manifest with download URLs on a loopback HTTP server that serves dist/,
// then runs COMMAND with {manifest} in ARGS replaced by the manifest's path: krew's own
// validate-krew-manifest then installs every platform's archive, as krew-index's CI does
// with the release's URLs.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		_, _ = fmt.Fprintf(os.Stderr, "krewmanifest: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: krewmanifest render|check|compare-goreleaser|compare-committed|serve [flags]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	dist := fs.String("dist", "dist", "goreleaser's dist directory")
	tmpl := fs.String("template", "krew/indexed.yaml.tmpl", "the manifest template")
	out := fs.String("o", "", "where to write the manifest (its file name must be indexed.yaml)")
	baseURL := fs.String("base-url", "", "download URL of the archives' directory, instead of the release's")
	goreleaser := fs.String("goreleaser", "dist/krew/indexed.yaml", "goreleaser's krew manifest")
	committed := fs.String("committed", "plugins/indexed.yaml", "the committed manifest")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}

	switch args[0] {
	case "render":
		if *out == "" {
			return errors.New("render: -o is required")
		}
		data, err := LoadDist(*dist)
		if err != nil {
			return err
		}
		data.BaseURL = *baseURL
		manifest, err := renderChecked(*tmpl, *out, data)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(*out, manifest, 0o644); err != nil {
			return err
		}
		_, _ = fmt.Fprintf(stdout, "wrote %s: %s, %d platforms\n", *out, data.Version, len(data.Platforms))
		return nil

	case "check":
		if fs.NArg() == 0 {
			return errors.New("check: name the manifests to check")
		}
		for _, path := range fs.Args() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if err := checkBytes(path, b); err != nil {
				return err
			}
			_, _ = fmt.Fprintf(stdout, "%s: ok\n", path)
		}
		return nil

	case "compare-goreleaser":
		if fs.NArg() != 1 {
			return errors.New("compare-goreleaser: name our manifest")
		}
		ours, err := parseFile(fs.Arg(0))
		if err != nil {
			return err
		}
		theirs, err := parseFile(*goreleaser)
		if err != nil {
			return err
		}
		if diffs := CompareGoreleaser(ours, theirs); len(diffs) > 0 {
			return fmt.Errorf("%s and goreleaser's %s disagree (both come from krew/):\n  %s", fs.Arg(0), *goreleaser, strings.Join(diffs, "\n  "))
		}
		_, _ = fmt.Fprintf(stdout, "%s agrees with goreleaser's %s\n", fs.Arg(0), *goreleaser)
		return nil

	case "compare-committed":
		if fs.NArg() != 1 {
			return errors.New("compare-committed: name the generated manifest")
		}
		a, err := os.ReadFile(*committed)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(fs.Arg(0))
		if err != nil {
			return err
		}
		if diff := lineDiff(Normalize(a), Normalize(b)); diff != "" {
			return fmt.Errorf("%s is out of date with krew/ (run make krew-manifest and commit it); apart from version and sha256:\n%s", *committed, diff)
		}
		_, _ = fmt.Fprintf(stdout, "%s matches krew/ (apart from version and sha256)\n", *committed)
		return nil

	case "serve":
		if fs.NArg() == 0 {
			return errors.New("serve: name the command to run after --")
		}
		return serve(*dist, *tmpl, fs.Args(), stdout, stderr)
	}
	return fmt.Errorf("unknown subcommand %q", args[0])
}

func renderChecked(tmpl, name string, data Data) ([]byte, error) {
	manifest, err := Render(tmpl, data)
	if err != nil {
		return nil, err
	}
	return manifest, checkBytes(name, manifest)
}

func checkBytes(name string, b []byte) error {
	m, err := Parse(b)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if problems := Check(name, m); len(problems) > 0 {
		return fmt.Errorf("%s:\n  %s", name, strings.Join(problems, "\n  "))
	}
	return nil
}

func parseFile(path string) (Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Manifest{}, err
	}
	m, err := Parse(b)
	if err != nil {
		return Manifest{}, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// serve serves dist on a loopback port, renders the manifest with URLs on it into a
// temporary directory and runs command with "{manifest}" replaced by the manifest's path.
func serve(dist, tmpl string, command []string, stdout, stderr io.Writer) error {
	data, err := LoadDist(dist)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dist))}
	go func() { _ = srv.Serve(l) }()
	defer func() { _ = srv.Close() }()

	data.BaseURL = "http://" + l.Addr().String()
	dir, err := os.MkdirTemp("", "krewmanifest-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	path := filepath.Join(dir, "indexed.yaml")
	manifest, err := renderChecked(tmpl, path, data)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, manifest, 0o644); err != nil {
		return err
	}
	args := make([]string, len(command))
	for i, a := range command {
		args[i] = strings.ReplaceAll(a, "{manifest}", path)
	}
	_, _ = fmt.Fprintf(stdout, "serving %s at %s; running %s\n", dist, data.BaseURL, strings.Join(args, " "))
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	return nil
}

// lineDiff lists the lines that differ, numbered, or returns "" when a and b are equal.
func lineDiff(a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	var out strings.Builder
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			_, _ = fmt.Fprintf(&out, "  line %d\n    - %s\n    + %s\n", i+1, x, y)
		}
	}
	return out.String()
}
