package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// archiveID is the goreleaser archive (in .goreleaser.yaml) the manifest points at.
const archiveID = "kubectl-indexed"

// Platform is one archive of the build, as the template sees it.
type Platform struct {
	OS, Arch string
	// Archive is the archive's file name; SHA256 its digest, computed from the file.
	Archive, SHA256 string
	// Ext is ".exe" on Windows.
	Ext string
}

// Data is what the template is rendered with.
type Data struct {
	// Version is the manifest's spec.version: "v" and goreleaser's version.
	Version string
	// BaseURL replaces the release download URL (the archives' directory), for serving dist/
	// on loopback to krew's validator. Empty for the real manifest.
	BaseURL   string
	Platforms []Platform
}

type goreleaserMetadata struct {
	ProjectName string `json:"project_name"`
	Tag         string `json:"tag"`
	Version     string `json:"version"`
	Commit      string `json:"commit"`
}

type goreleaserArtifact struct {
	Name   string         `json:"name"`
	Path   string         `json:"path"`
	Goos   string         `json:"goos"`
	Goarch string         `json:"goarch"`
	Type   string         `json:"type"`
	Extra  map[string]any `json:"extra"`
}

// LoadDist reads a goreleaser build's dist directory: the version from metadata.json, the
// archives from artifacts.json. Every archive's sha256 is computed from the file and must
// agree with checksums.txt, and every archive must hold exactly the files the manifest
// installs.
func LoadDist(dist string) (Data, error) {
	var meta goreleaserMetadata
	if err := readJSON(filepath.Join(dist, "metadata.json"), &meta); err != nil {
		return Data{}, err
	}
	if meta.Version == "" {
		return Data{}, fmt.Errorf("%s: no version", filepath.Join(dist, "metadata.json"))
	}
	var artifacts []goreleaserArtifact
	if err := readJSON(filepath.Join(dist, "artifacts.json"), &artifacts); err != nil {
		return Data{}, err
	}
	sums, err := readChecksums(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		return Data{}, err
	}

	data := Data{Version: "v" + meta.Version}
	for _, a := range artifacts {
		if a.Type != "Archive" || a.Extra["ID"] != archiveID {
			continue
		}
		p := Platform{OS: a.Goos, Arch: a.Goarch, Archive: a.Name}
		if p.OS == "windows" {
			p.Ext = ".exe"
		}
		path := filepath.Join(dist, a.Name)
		if p.SHA256, err = sha256File(path); err != nil {
			return Data{}, err
		}
		if want, ok := sums[a.Name]; !ok {
			return Data{}, fmt.Errorf("%s is not in checksums.txt", a.Name)
		} else if want != p.SHA256 {
			return Data{}, fmt.Errorf("%s: sha256 %s, but checksums.txt says %s", a.Name, p.SHA256, want)
		}
		if err := checkArchive(path, p.Ext); err != nil {
			return Data{}, err
		}
		data.Platforms = append(data.Platforms, p)
	}
	if len(data.Platforms) == 0 {
		return Data{}, fmt.Errorf("%s lists no archive with id %q: run a goreleaser build first (make dist)", filepath.Join(dist, "artifacts.json"), archiveID)
	}
	slices.SortFunc(data.Platforms, func(a, b Platform) int {
		return strings.Compare(a.OS+"/"+a.Arch, b.OS+"/"+b.Arch)
	})
	return data, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading goreleaser's output: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// readChecksums parses goreleaser's checksums.txt: "<sha256>  <file name>" per line.
func readChecksums(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading goreleaser's output: %w", err)
	}
	defer func() { _ = f.Close() }()
	sums := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) != 2 {
			return nil, fmt.Errorf("%s: malformed line %q", path, s.Text())
		}
		sums[fields[1]] = fields[0]
	}
	return sums, s.Err()
}

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// archiveEntry is a file in an archive and whether it is executable (always true in a zip,
// which carries no Unix mode that Windows uses).
type archiveEntry struct {
	name       string
	executable bool
}

// checkArchive checks that the archive holds, at its top level, exactly the files the
// manifest's `files` install, and that the executables are executable.
func checkArchive(path, ext string) error {
	var entries []archiveEntry
	var err error
	if strings.HasSuffix(path, ".zip") {
		entries, err = zipEntries(path)
	} else {
		entries, err = tarGzEntries(path)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	want := map[string]bool{"LICENSE": false, "README.md": false, "kubectl-indexed" + ext: true, "kubectl_complete-indexed" + ext: true}
	var problems []string
	seen := map[string]bool{}
	for _, e := range entries {
		executable, expected := want[e.name]
		switch {
		case !expected:
			problems = append(problems, fmt.Sprintf("unexpected file %q", e.name))
		case executable && !e.executable:
			problems = append(problems, fmt.Sprintf("%s is not executable", e.name))
		}
		seen[e.name] = true
	}
	for name := range want {
		if !seen[name] {
			problems = append(problems, fmt.Sprintf("%s is missing", name))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return fmt.Errorf("%s: %s", path, strings.Join(problems, "; "))
	}
	return nil
}

func tarGzEntries(path string) ([]archiveEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	var entries []archiveEntry
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return entries, nil
		}
		if err != nil {
			return nil, err
		}
		entries = append(entries, archiveEntry{name: h.Name, executable: h.FileInfo().Mode()&0o111 == 0o111})
	}
}

func zipEntries(path string) ([]archiveEntry, error) {
	r, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = r.Close() }()
	var entries []archiveEntry
	for _, f := range r.File {
		entries = append(entries, archiveEntry{name: f.Name, executable: true})
	}
	return entries, nil
}
