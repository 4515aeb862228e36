// Package browser renders `kubectl indexed status -o html` in a real headless Chromium (Debian's
// chromium, driven with chromedp) and checks the page against `status -o json` of the same
// objects: every cell's colour is its index's state, no request leaves the page, the console
// has no error; and the lineage and reconcile pages against `status --lineage -o json` and
// `reconcile -o json` (pages_test.go). It is a module of its own so that chromedp stays out of
// the plugin's module.
//
//	make browser-test      (installs chromium when missing; writes out/status-html-10000.png)
package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

var (
	root   = filepath.Join("..", "..")
	plugin string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "browser-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	plugin = filepath.Join(dir, "kubectl-indexed")
	build := exec.Command("go", "build", "-o", plugin, "./cmd/kubectl-indexed")
	build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the plugin:", err)
		os.Exit(2)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// status runs the plugin offline on a Job and its pods, in the format given.
func status(t *testing.T, job, pods, format string) []byte {
	t.Helper()
	cmd := exec.Command(plugin, "status", "-f", job, "--pods-file", pods, "-o", format)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		// Exit 1 and 3 are verdicts (--exit-code is not given, but be tolerant); others fail.
		if ok := errorsAs(err, &ee); !ok {
			t.Fatalf("status -o %s: %v", format, err)
		}
		t.Fatalf("status -o %s: %v\n%s", format, err, ee.Stderr)
	}
	return out
}

func errorsAs(err error, ee **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	*ee = e
	return ok
}

// want is what status -o json says of the indexes.
type want struct {
	states []string
	// failed is the first Failed index with an exit code (-1: none), exit that code.
	failed, exit int
	// node and started are where and when (UTC, as the page writes it) the failed index's
	// last attempt ran, as its attemptHistory says ("": not known).
	node, started string
	// excluded counts the indexes drawn excluded by maxFailedIndexes.
	excluded int
}

// excludedState is the page's name (pkg/htmlreport.ExcludedState) of an index that -o json
// says is Unfinished in a Job whose reason is MaxFailedIndexesExceeded.
const excludedState = "ExcludedByMaxFailedIndexes"

func expected(t *testing.T, js []byte) want {
	t.Helper()
	var r struct {
		Completions int    `json:"completions"`
		Reason      string `json:"reason"`
		Indexes     []struct {
			Index          int    `json:"index"`
			State          string `json:"state"`
			LastExitCode   *int   `json:"lastExitCode"`
			AttemptHistory []struct {
				Node      string     `json:"node"`
				StartedAt *time.Time `json:"startedAt"`
			} `json:"attemptHistory"`
		} `json:"indexes"`
	}
	if err := json.Unmarshal(js, &r); err != nil {
		t.Fatal(err)
	}
	w := want{states: make([]string, r.Completions), failed: -1}
	for _, ix := range r.Indexes {
		w.states[ix.Index] = ix.State
		if ix.State == "Unfinished" && r.Reason == "MaxFailedIndexesExceeded" {
			w.states[ix.Index] = excludedState
			w.excluded++
		}
		if w.failed < 0 && ix.State == "Failed" && ix.LastExitCode != nil {
			w.failed, w.exit = ix.Index, *ix.LastExitCode
			if n := len(ix.AttemptHistory); n > 0 {
				last := ix.AttemptHistory[n-1]
				w.node = last.Node
				if last.StartedAt != nil {
					w.started = last.StartedAt.UTC().Format("2006-01-02 15:04:05") + " UTC"
				}
			}
		}
	}
	return w
}

// page is what the browser saw of one report.
type page struct {
	drawn    []string // each cell's state, from its pixel
	requests []string // every URL the page asked for
	errors   []string // console errors and uncaught exceptions
	draw     float64  // ms the script took to draw the grid
	paint    float64  // first-contentful-paint, ms after navigation
	// failedWithExit is the index whose hover text is read (-1: none), hover that text.
	failedWithExit int
	hover          string
	// timelineWords is the timeline's sentence ("": no timeline section), timelineInk the
	// pixels of its chart that are not white (-1: no chart), timelineDraw the ms it took.
	timelineWords string
	timelineInk   int
	timelineDraw  float64
	// printed names the parts shown with print media (grid, timeline, timeline-words).
	printed string
}

// printedParts names the parts of the page a print shows, of the grid and the timeline.
const printedParts = `["grid", "timeline-words", "timeline"].filter(id => {
  const e = document.getElementById(id);
  return e && getComputedStyle(e).display !== "none" && e.getBoundingClientRect().height > 0;
}).join(" ")`

// timelineRead is what readTimeline returns.
type timelineRead struct {
	Words string  `json:"words"`
	Ink   int     `json:"ink"`
	Ms    float64 `json:"ms"`
}

// readTimeline reads the timeline section back: its words and how much its chart has drawn.
const readTimeline = `(() => {
  const w = document.getElementById("timeline-words"), c = document.getElementById("timeline");
  let ink = -1;
  if (c) {
    ink = 0;
    const img = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    for (let i = 0; i < img.length; i += 4) if (img[i] < 250 || img[i + 1] < 250 || img[i + 2] < 250) ink++;
  }
  return {words: w ? w.textContent : "", ink: ink, ms: window.indexedReport.timelineMillis || 0};
})()`

var (
	browserOnce sync.Once
	browserCtx  context.Context
	browserErr  error
)

// browser is one Chromium for every page (each page a tab of its own).
func browser(t *testing.T) context.Context {
	t.Helper()
	browserOnce.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(chromiumPath()), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 1024))
		alloc, _ := chromedp.NewExecAllocator(context.Background(), opts...)
		browserCtx, _ = chromedp.NewContext(alloc)
		_, browserErr = chromedp.Run(browserCtx, chromedp.Evaluate[int]("1"))
	})
	if browserErr != nil {
		t.Fatalf("starting chromium (%s): %v", chromiumPath(), browserErr)
	}
	return browserCtx
}

func chromiumPath() string {
	for _, p := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser"} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	return "chromium"
}

// readCells reads the grid's pixels back: for each index the colour at its cell's centre,
// matched to the palette the page declares; "" when it is none of them.
const readCells = `(() => {
  const r = window.indexedReport, c = document.getElementById("grid");
  const img = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
  const hex = (i) => "#" + [0, 1, 2].map(k => img[i + k].toString(16).padStart(2, "0")).join("");
  const out = new Array(r.n);
  for (let i = 0; i < r.n; i++) {
    const p = r.cellOf(i), x = p.x + (r.cell >> 1), y = p.y + (r.cell >> 1);
    const k = r.colors.indexOf(hex((y * c.width + x) * 4));
    out[i] = k < 0 ? "" : r.states[k];
  }
  return out;
})()`

// render opens the HTML file in a new tab and reads the state of every cell from its pixel;
// with screenshot, it writes a PNG of the whole page there.
func render(t *testing.T, file, screenshot string, failedWithExit int) page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser(t))
	defer cancel()
	var mu sync.Mutex
	p := page{failedWithExit: failedWithExit}
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			p.requests = append(p.requests, e.Request.URL)
		case *runtime.EventConsoleAPICalled:
			if e.Type == "error" || e.Type == "warning" || e.Type == "assert" {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value))
				}
				p.errors = append(p.errors, "console."+string(e.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			p.errors = append(p.errors, fmt.Sprintf("uncaught exception: %s (line %d)", e.ExceptionDetails.Text, e.ExceptionDetails.LineNumber))
		}
	}); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	tctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelT()
	if err := chromedp.Do(tctx, chromedp.Navigate("file://"+abs), chromedp.WaitVisible(chromedp.CSS(`body[data-drawn="true"]`))); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if p.drawn, err = chromedp.Run(tctx, chromedp.Evaluate[[]string](readCells)); err != nil {
		t.Fatalf("%s: reading the cells: %v", file, err)
	}
	if p.draw, err = chromedp.Run(tctx, chromedp.Evaluate[float64](`window.indexedReport.drawMillis`)); err != nil {
		t.Fatal(err)
	}
	if p.paint, err = chromedp.Run(tctx, chromedp.Evaluate[float64](`(performance.getEntriesByName("first-contentful-paint")[0] || {startTime: -1}).startTime`)); err != nil {
		t.Fatal(err)
	}
	tl, err := chromedp.Run(tctx, chromedp.Evaluate[timelineRead](readTimeline))
	if err != nil {
		t.Fatalf("%s: reading the timeline: %v", file, err)
	}
	p.timelineWords, p.timelineInk, p.timelineDraw = tl.Words, tl.Ink, tl.Ms
	// As printed: the print stylesheet must keep the grid and the timeline.
	if _, err := chromedp.Call(tctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
		t.Fatal(err)
	}
	if p.printed, err = chromedp.Run(tctx, chromedp.Evaluate[string](printedParts)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{}); err != nil {
		t.Fatal(err)
	}
	// The hover text of the first failed index with an exit code, as a reader sees it.
	if i := p.failedWithExit; i >= 0 {
		if p.hover, err = chromedp.Run(tctx, chromedp.Evaluate[string](fmt.Sprintf(`window.indexedReport.describe(%d)`, i))); err != nil {
			t.Fatal(err)
		}
	}
	if screenshot != "" {
		buf, err := chromedp.Run(tctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(screenshot, buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return p
}

// check compares a rendered page with the states of status -o json.
func check(t *testing.T, name string, w want, p page, file string) {
	t.Helper()
	want := w.states
	if w.failed >= 0 && !strings.Contains(p.hover, fmt.Sprintf("last exit code %d", w.exit)) {
		t.Errorf("%s: the facts of failed index %d do not say its exit code %d: %q", name, w.failed, w.exit, p.hover)
	}
	if w.node != "" && !strings.Contains(p.hover, "node "+w.node) {
		t.Errorf("%s: the facts of failed index %d do not say it ran on node %s: %q", name, w.failed, w.node, p.hover)
	}
	if w.started != "" && !strings.Contains(p.hover, "started "+w.started) {
		t.Errorf("%s: the facts of failed index %d do not say it started %s: %q", name, w.failed, w.started, p.hover)
	}
	if len(p.drawn) != len(want) {
		t.Fatalf("%s: %d cells drawn, want %d indexes", name, len(p.drawn), len(want))
	}
	bad := 0
	for i := range want {
		if p.drawn[i] != want[i] {
			if bad < 5 {
				t.Errorf("%s: index %d drawn %q, status -o json says %q", name, i, p.drawn[i], want[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d cells disagree", name, bad, len(want))
	}
	self := "file://"
	for _, u := range p.requests {
		if !strings.HasPrefix(u, self) || !strings.HasSuffix(u, filepath.Base(file)) {
			t.Errorf("%s: the page asked for %s", name, u)
		}
	}
	for _, e := range p.errors {
		t.Errorf("%s: %s", name, e)
	}
}

// TestFixturesRender: every captured fixture's report, drawn, agrees with its JSON.
func TestFixturesRender(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(root, "test", "fixtures", "*", "job.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	out := t.TempDir()
	hovered, placed, charted, excluded := 0, 0, 0, 0
	for _, job := range dirs {
		dir := filepath.Dir(job)
		name := filepath.Base(dir)
		pods := filepath.Join(dir, "pods.json")
		html := filepath.Join(out, name+".html")
		if err := os.WriteFile(html, status(t, job, pods, "html"), 0o644); err != nil {
			t.Fatal(err)
		}
		w := expected(t, status(t, job, pods, "json"))
		p := render(t, html, "", w.failed)
		check(t, name, w, p, html)
		checkTimeline(t, name, p)
		if w.failed >= 0 {
			hovered++
		}
		if w.node != "" && w.started != "" {
			placed++
		}
		if p.timelineInk > 0 {
			charted++
		}
		excluded += w.excluded
	}
	if placed == 0 || charted == 0 || excluded == 0 {
		t.Errorf("no fixture checked a failed index's node and start (%d), drew a timeline (%d) or an index excluded by maxFailedIndexes (%d)", placed, charted, excluded)
	}
	t.Logf("%d fixtures rendered and checked cell by cell; the facts of a failed index checked in %d, its node and start in %d; %d timelines drawn; %d indexes excluded by maxFailedIndexes",
		len(dirs), hovered, placed, charted, excluded)
}

// checkTimeline: a status page has the timeline section; its chart is drawn (ink) when its
// words count attempts, and absent when they say no time is known.
func checkTimeline(t *testing.T, name string, p page) {
	t.Helper()
	want := "grid timeline-words"
	if p.timelineInk >= 0 {
		want += " timeline"
	}
	if p.printed != want {
		t.Errorf("%s: printed, the page shows %q, want %q", name, p.printed, want)
	}
	switch {
	case p.timelineWords == "":
		t.Errorf("%s: no timeline section", name)
	case strings.HasPrefix(p.timelineWords, "No attempt"):
		if p.timelineInk >= 0 {
			t.Errorf("%s: the timeline says no time is known but draws a chart", name)
		}
	case p.timelineInk <= 0:
		t.Errorf("%s: the timeline says %q but its chart is blank (%d)", name, p.timelineWords, p.timelineInk)
	}
}

// TestLargeJobsRender: generated Jobs of 10,000 and 100,000 indexes (statusgen, from the
// captured "retrying" fixture: indexes in several states); the 10,000 one is photographed into
// out/, where CI keeps artifacts. Size and drawing times are logged for docs/benchmarks.md.
func TestLargeJobsRender(t *testing.T) {
	if err := os.MkdirAll("out", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{10000, 100000} {
		dir := t.TempDir()
		gen := exec.Command("go", "run", "./test/bench/statusgen", "-fixture", "test/fixtures/retrying", "-pods", fmt.Sprint(n), "-dir", dir)
		gen.Dir, gen.Stderr = root, os.Stderr
		if err := gen.Run(); err != nil {
			t.Fatalf("statusgen: %v", err)
		}
		job, pods := filepath.Join(dir, "job.json"), filepath.Join(dir, "pods.json")
		html := filepath.Join(dir, "report.html")
		b := status(t, job, pods, "html")
		if err := os.WriteFile(html, b, 0o644); err != nil {
			t.Fatal(err)
		}
		shot := ""
		if n == 10000 {
			shot = filepath.Join("out", "status-html-10000.png")
		}
		w := expected(t, status(t, job, pods, "json"))
		began := time.Now()
		p := render(t, html, shot, w.failed)
		took := time.Since(began)
		check(t, fmt.Sprintf("%d indexes", n), w, p, html)
		checkTimeline(t, fmt.Sprintf("%d indexes", n), p)
		t.Logf("%d indexes: %d bytes; script drew the grid and the timeline in %.0f ms (timeline %.1f ms); first contentful paint %.0f ms after navigation; opened, drawn and read back in %s; timeline: %s",
			n, len(b), p.draw, p.timelineDraw, p.paint, took.Round(time.Millisecond), p.timelineWords)
	}
}
