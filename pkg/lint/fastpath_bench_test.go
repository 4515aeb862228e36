//go:build unix

package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// benchStream writes n Job documents shaped as test/bench/lint.sh writes them (one in ten on
// the global backoffLimit alone, one in a hundred with an error) and returns the file's path.
func benchStream(tb testing.TB, n int) string {
	tb.Helper()
	var b strings.Builder
	for i := range n {
		c := 2 + i%50
		fmt.Fprintf(&b, "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: shard-job-%05d\n  labels:\n    app: bench\nspec:\n  completionMode: Indexed\n  completions: %d\n  parallelism: %d\n", i, c, 1+i%8)
		if i%10 != 0 {
			fmt.Fprintf(&b, "  backoffLimitPerIndex: 1\n  maxFailedIndexes: %d\n", 1+i%2)
		}
		if i%100 == 0 {
			b.WriteString("  activeDeadlineSeconds: -1\n")
		}
		b.WriteString("  podFailurePolicy:\n    rules:\n    - action: Ignore\n      onPodConditions:\n      - type: DisruptionTarget\n")
		if i%10 != 0 {
			b.WriteString("    - action: FailIndex\n      onExitCodes:\n        containerName: worker\n        operator: In\n        values: [42]\n")
		}
		fmt.Fprintf(&b, "  template:\n    metadata:\n      labels:\n        app: bench\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: worker\n        image: registry.example.com/eval/worker:v%d\n        args: [\"--shard=$(JOB_COMPLETION_INDEX)\", \"--of=%d\"]\n        resources:\n          requests: {cpu: 100m, memory: 128Mi}\n          limits: {memory: 256Mi}\n", i%7, c)
	}
	path := filepath.Join(tb.TempDir(), "jobs.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// lintFile lints path as `kubectl indexed lint -o json` does (source.ForEachInOrder with
// GOMAXPROCS workers).
func lintFile(tb testing.TB, path string, noFastPath bool) *Report {
	l := NewLinter(Options{})
	if err := source.ForEachInOrder([]string{path}, source.Options{NoFastPath: noFastPath}, runtime.GOMAXPROCS(0), l.Check, l.Keep); err != nil {
		tb.Fatal(err)
	}
	r, err := l.Report()
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// The fast path is an optimisation only: the same stream gives the same report without it,
// findings, lines and messages included.
func TestFastPathGivesTheSameReport(t *testing.T) {
	path := benchStream(t, 300)
	fast, slow := lintFile(t, path, false), lintFile(t, path, true)
	if fast.Summary.Errors == 0 || fast.Summary.Warnings == 0 {
		t.Fatalf("the stream should have errors and warnings: %+v", fast.Summary)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("reports differ:\nfast path: %+v\nyaml only: %+v", fast.Summary, slow.Summary)
		for i := range min(len(fast.Findings), len(slow.Findings)) {
			if !reflect.DeepEqual(fast.Findings[i], slow.Findings[i]) {
				t.Errorf("first difference at finding %d:\n%+v\n%+v", i, fast.Findings[i], slow.Findings[i])
				break
			}
		}
	}
}

// BenchmarkLintFastPath measures what pkg/source's fast path (fastjson.go, fastlines.go) gains
// by itself: the same lint of the same stream with and without it, in one run.
//
//	go test -run '^$' -bench BenchmarkLintFastPath -benchmem -count 6 ./pkg/lint
func BenchmarkLintFastPath(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			path := benchStream(b, n)
			info, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			for _, mode := range []struct {
				name       string
				noFastPath bool
			}{{"fast", false}, {"yaml", true}} {
				b.Run(mode.name, func(b *testing.B) {
					b.SetBytes(info.Size())
					start := cpuTime(b)
					for b.Loop() {
						lintFile(b, path, mode.noFastPath)
					}
					// CPU time of the process, all threads: less disturbed than wall time by
					// other work on a shared machine.
					b.ReportMetric(float64((cpuTime(b)-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
				})
			}
		})
	}
}

func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
