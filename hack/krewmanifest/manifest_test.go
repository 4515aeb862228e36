package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const realTemplate = "../../krew/indexed.yaml.tmpl"

func fakeData(version, shaSeed string) Data {
	d := Data{Version: version}
	for _, p := range Platforms {
		osName, arch, _ := strings.Cut(p, "/")
		ext := ""
		if osName == "windows" {
			ext = ".exe"
		}
		sum := sha256.Sum256([]byte(shaSeed + p))
		d.Platforms = append(d.Platforms, Platform{
			OS: osName, Arch: arch, Ext: ext,
			Archive: fmt.Sprintf("kubectl-indexed_%s_%s_%s.tar.gz", version, osName, arch),
			SHA256:  hex.EncodeToString(sum[:]),
		})
	}
	return d
}

// TestRealTemplate renders the committed template and texts and holds them to the review rules.
func TestRealTemplate(t *testing.T) {
	out, err := Render(realTemplate, fakeData("v1.2.3", "a"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse(out)
	if err != nil {
		t.Fatalf("the rendered manifest does not parse: %v\n%s", err, out)
	}
	if problems := Check("plugins/indexed.yaml", m); len(problems) > 0 {
		t.Fatalf("krew/ renders a manifest a reviewer would reject:\n%s", strings.Join(problems, "\n"))
	}
	if got := m.Spec.Platforms[0].URI; got != "https://github.com/kubectl-indexed/kubectl-indexed/releases/download/v1.2.3/kubectl-indexed_v1.2.3_darwin_amd64.tar.gz" {
		t.Errorf("uri %q", got)
	}
	if !strings.HasSuffix(m.Spec.Description, "\n") || strings.HasPrefix(m.Spec.Description, " ") {
		t.Errorf("description not a clean literal block: %q", m.Spec.Description)
	}

	local := fakeData("v1.2.3", "a")
	local.BaseURL = "http://127.0.0.1:4242"
	out, err = Render(realTemplate, local)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := Parse(out); m.Spec.Platforms[5].URI != "http://127.0.0.1:4242/kubectl-indexed_v1.2.3_windows_arm64.tar.gz" {
		t.Errorf("with a base URL: uri %q", m.Spec.Platforms[5].URI)
	}
}

func TestCheckCatches(t *testing.T) {
	good, err := Render(realTemplate, fakeData("v1.2.3", "a"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		file   string
		mutate func(*Manifest)
		want   string
	}{
		{"name must match the file", "plugins/other.yaml", func(*Manifest) {}, "metadata.name"},
		{"version without v", "", func(m *Manifest) { m.Spec.Version = "1.2.3" }, "not semver with a leading v"},
		{"short description too long", "", func(m *Manifest) { m.Spec.ShortDescription = strings.Repeat("x", 51) }, "1 to 50 characters (has 51)"},
		{"wide description", "", func(m *Manifest) { m.Spec.Description = strings.Repeat("y", 81) + "\n" }, "81 columns wide"},
		{"usage example", "", func(m *Manifest) { m.Spec.Description += "\n  $ kubectl indexed status job\n" }, "usage example"},
		{"kubectl example", "", func(m *Manifest) { m.Spec.Description += "\n    kubectl indexed lint job.yaml\n" }, "usage example"},
		{"caveats without completion", "", func(m *Manifest) { m.Spec.Caveats = "Restart your shell.\n" }, "spec.caveats"},
		{"missing platform", "", func(m *Manifest) { m.Spec.Platforms = m.Spec.Platforms[1:] }, "spec.platforms has no darwin/amd64"},
		{"windows bin without .exe", "", func(m *Manifest) { m.Spec.Platforms[4].Bin = "kubectl-indexed" }, `bin "kubectl-indexed", want "kubectl-indexed.exe"`},
		{"bad sha", "", func(m *Manifest) { m.Spec.Platforms[2].SHA256 = "deadbeef" }, "is not a sha256"},
		{"uri of another platform", "", func(m *Manifest) { m.Spec.Platforms[2].URI = m.Spec.Platforms[3].URI }, "is not that platform's archive"},
		{"files without LICENSE", "", func(m *Manifest) { m.Spec.Platforms[0].Files = m.Spec.Platforms[0].Files[:2] }, "files do not install LICENSE"},
		{"duplicate platform", "", func(m *Manifest) { m.Spec.Platforms[1] = m.Spec.Platforms[0] }, "appears twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse(good)
			if err != nil {
				t.Fatal(err)
			}
			tc.mutate(&m)
			file := tc.file
			if file == "" {
				file = "plugins/indexed.yaml"
			}
			problems := strings.Join(Check(file, m), "\n")
			if !strings.Contains(problems, tc.want) {
				t.Errorf("problems %q, want one containing %q", problems, tc.want)
			}
		})
	}
}

func TestNormalizeComparesAcrossBuilds(t *testing.T) {
	a, err := Render(realTemplate, fakeData("v0.0.1-snapshot", "first build"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Render(realTemplate, fakeData("v0.2.0", "second build"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a, b) {
		t.Fatal("two builds rendered the same manifest")
	}
	if d := lineDiff(Normalize(a), Normalize(b)); d != "" {
		t.Errorf("builds differing only in version and digests compare unequal:\n%s", d)
	}
	edited := bytes.Replace(b, []byte("shortDescription: \""), []byte("shortDescription: \"New: "), 1)
	if d := lineDiff(Normalize(a), Normalize(edited)); !strings.Contains(d, "New: ") {
		t.Errorf("an edited text is not reported: %q", d)
	}
}

func TestCompareGoreleaser(t *testing.T) {
	out, err := Render(realTemplate, fakeData("v1.0.0", "x"))
	if err != nil {
		t.Fatal(err)
	}
	ours, _ := Parse(out)
	theirs, _ := Parse(out)
	theirs.Spec.Platforms = theirs.Spec.Platforms[:5]
	theirs.Spec.Platforms[1].SHA256 = strings.Repeat("0", 64)
	theirs.Spec.Caveats = "something else"
	got := strings.Join(CompareGoreleaser(ours, theirs), "\n")
	for _, want := range []string{"spec.caveats", "platform darwin/arm64 sha256", "platform windows/arm64: in ours true, in goreleaser's false"} {
		if !strings.Contains(got, want) {
			t.Errorf("differences %q lack %q", got, want)
		}
	}
	if d := CompareGoreleaser(ours, ours); len(d) != 0 {
		t.Errorf("a manifest differs from itself: %q", d)
	}
}

// writeDist writes a goreleaser-like dist directory with small real archives; change edits
// the files of one archive before it is written.
func writeDist(t *testing.T, change func(osArch string, files map[string]tarFile)) string {
	t.Helper()
	dist := t.TempDir()
	meta := map[string]string{"project_name": "kubectl-indexed", "tag": "v0.0.0", "version": "0.0.1-snapshot"}
	var artifacts []map[string]any
	var sums strings.Builder
	for _, p := range Platforms {
		osName, arch, _ := strings.Cut(p, "/")
		ext, format := "", "tar.gz"
		if osName == "windows" {
			ext, format = ".exe", "zip"
		}
		files := map[string]tarFile{
			"LICENSE":                        {"license", 0o644},
			"README.md":                      {"readme", 0o644},
			"kubectl-indexed" + ext:          {"bin", 0o755},
			"kubectl_complete-indexed" + ext: {"bin", 0o755},
		}
		if change != nil {
			change(p, files)
		}
		name := fmt.Sprintf("kubectl-indexed_v0.0.1-snapshot_%s_%s.%s", osName, arch, format)
		b := archive(t, format, files)
		if err := os.WriteFile(filepath.Join(dist, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
		artifacts = append(artifacts,
			map[string]any{"name": name, "path": "dist/" + name, "goos": osName, "goarch": arch, "type": "Archive", "extra": map[string]any{"ID": "kubectl-indexed"}},
			map[string]any{"name": "kubectl-indexed", "goos": osName, "goarch": arch, "type": "Binary", "extra": map[string]any{"ID": "kubectl-indexed"}})
	}
	for name, v := range map[string]any{"metadata.json": meta, "artifacts.json": artifacts} {
		b, _ := json.Marshal(v)
		if err := os.WriteFile(filepath.Join(dist, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dist, "checksums.txt"), []byte(sums.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dist
}

type tarFile struct {
	content string
	mode    int64
}

func archive(t *testing.T, format string, files map[string]tarFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	if format == "zip" {
		zw := zip.NewWriter(&buf)
		for name, f := range files {
			w, err := zw.Create(name)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = w.Write([]byte(f.content))
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: f.mode, Size: int64(len(f.content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write([]byte(f.content))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestLoadDist(t *testing.T) {
	dist := writeDist(t, nil)
	data, err := LoadDist(dist)
	if err != nil {
		t.Fatal(err)
	}
	if data.Version != "v0.0.1-snapshot" || len(data.Platforms) != 6 {
		t.Fatalf("got %s with %d platforms", data.Version, len(data.Platforms))
	}
	w := data.Platforms[4]
	if w.OS != "windows" || w.Arch != "amd64" || w.Ext != ".exe" || !strings.HasSuffix(w.Archive, ".zip") {
		t.Errorf("platform 4: %+v", w)
	}
	b, err := os.ReadFile(filepath.Join(dist, w.Archive))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != w.SHA256 {
		t.Errorf("sha256 %s is not the archive's", w.SHA256)
	}
	out, err := Render(realTemplate, data)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if problems := Check("indexed.yaml", m); len(problems) > 0 {
		t.Errorf("manifest from a dist: %q", problems)
	}
}

func TestLoadDistRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(string, map[string]tarFile)
		edit   func(t *testing.T, dist string)
		want   string
	}{
		{"an archive without LICENSE", func(p string, f map[string]tarFile) {
			if p == "linux/arm64" {
				delete(f, "LICENSE")
			}
		}, nil, "LICENSE is missing"},
		{"a helper that is not executable", func(p string, f map[string]tarFile) {
			if p == "darwin/arm64" {
				f["kubectl_complete-indexed"] = tarFile{"bin", 0o644}
			}
		}, nil, "kubectl_complete-indexed is not executable"},
		{"a stray file", func(p string, f map[string]tarFile) {
			if p == "linux/amd64" {
				f["debug.log"] = tarFile{"x", 0o644}
			}
		}, nil, `unexpected file "debug.log"`},
		{"a checksum that does not match", nil, func(t *testing.T, dist string) {
			path := filepath.Join(dist, "checksums.txt")
			b, _ := os.ReadFile(path)
			b[0] ^= 1 // a hex digit becomes another (0<->1, a<->`): either way not the sum
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "but checksums.txt says"},
		{"no build", nil, func(t *testing.T, dist string) {
			if err := os.WriteFile(filepath.Join(dist, "artifacts.json"), []byte("[]"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "run a goreleaser build first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dist := writeDist(t, tc.change)
			if tc.edit != nil {
				tc.edit(t, dist)
			}
			_, err := LoadDist(dist)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// FuzzManifest feeds arbitrary bytes to what reads manifests: nothing may panic, and a
// manifest that parses is either accepted or given reasons.
func FuzzManifest(f *testing.F) {
	good, err := Render(realTemplate, fakeData("v1.2.3", "a"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte("apiVersion: v1\nspec:\n  version: v1\n"))
	f.Add([]byte("spec: {platforms: [{selector: {matchLabels: {os: linux}}}]}"))
	f.Add([]byte("  version: v0.0.1\n    sha256: " + strings.Repeat("a", 64) + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = Normalize(data)
		_ = lineDiff(data, good)
		m, err := Parse(data)
		if err != nil {
			return
		}
		if problems := Check("indexed.yaml", m); len(problems) == 0 && len(m.Spec.Platforms) != len(Platforms) {
			t.Errorf("accepted a manifest with %d platforms", len(m.Spec.Platforms))
		}
		_ = CompareGoreleaser(m, m)
	})
}
