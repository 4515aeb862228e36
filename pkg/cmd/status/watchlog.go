package status

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// watchLogContext gives the RetryWatcher following what a logger of its own: client-go logs
// through klog, which writes raw lines ("E1202 10:04:05.123 ... retrywatcher.go:131] Watch
// failed ...") to standard error in the middle of the report. Its errors become one warning
// in the command's words, once per distinct error; a refusal (403, 401), which the watch
// passes on and the command reports itself, a watch cut by the command's own end (context
// canceled: the other watch failed, or the wait is over), and its debug lines are dropped.
func watchLogContext(ctx context.Context, errOut io.Writer, what string) context.Context {
	return klog.NewContext(ctx, logr.New(&watchLog{w: errOut, what: what, seen: map[string]bool{}, mu: &sync.Mutex{}}))
}

type watchLog struct {
	w    io.Writer
	what string
	mu   *sync.Mutex
	seen map[string]bool
}

func (l *watchLog) Init(logr.RuntimeInfo) {}

// Enabled keeps only level 0: the RetryWatcher's V(1) and above are debug lines.
func (l *watchLog) Enabled(level int) bool { return level == 0 }

func (l *watchLog) Info(int, string, ...any) {}

func (l *watchLog) Error(err error, msg string, _ ...any) {
	if err == nil || strings.Contains(msg, "Unauthorized or Forbidden") || strings.Contains(msg, "credentials") || errors.Is(err, context.Canceled) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[err.Error()] {
		return
	}
	l.seen[err.Error()] = true
	_, _ = fmt.Fprintf(l.w, "warning: the watch of %s failed (%v); retrying\n", l.what, err)
}

func (l *watchLog) WithValues(...any) logr.LogSink { return l }
func (l *watchLog) WithName(string) logr.LogSink   { return l }
