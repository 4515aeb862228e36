package cmd

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Every verb's help opens with what it answers (the first paragraph of its description), then
// its usage line and its examples; the rest of the description (how, exit codes) follows, then
// the flags. Without the flags a page holds at most maxHelpLines lines, says nothing of the
// internals (protobuf, paginated LISTs: those are in docs/<verb>.md), and no comment of an
// example is broken into a line of a few words between full ones (issue 36, item 11).
// shortHelp bounds the pages of the verbs that were the longest: retry's help was 179 lines,
// 59 without its flags (issue 36, item 11); the rules in full moved to docs/retry.md.
var shortHelp = map[string]struct{ without, whole int }{
	"retry": {without: 50, whole: 135},
}

func TestHelpOpensWithTheAnswerAndExamples(t *testing.T) {
	const maxHelpLines = 62
	root := NewCmdIndexed(genericiooptions.NewTestIOStreamsDiscard())
	var verbs []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || !sub.IsAvailableCommand() {
				continue
			}
			if sub.Runnable() {
				verbs = append(verbs, sub)
			}
			walk(sub)
		}
	}
	walk(root)
	if len(verbs) < 12 {
		t.Fatalf("%d verbs", len(verbs))
	}
	for _, v := range verbs {
		args := append(strings.Fields(strings.TrimPrefix(v.CommandPath(), "kubectl indexed ")), "--help")
		out, _, code := execute(t, args...)
		if code != 0 {
			t.Errorf("%v: exit %d", args, code)
			continue
		}
		page := strings.TrimPrefix(v.CommandPath(), "kubectl indexed ")
		usage, examples, flags := strings.Index(out, "\nUsage:\n"), strings.Index(out, "\nExamples:\n"), strings.Index(out, "\nFlags:\n")
		if usage < 0 || flags < 0 {
			t.Errorf("%s: no usage or flags:\n%s", page, out)
			continue
		}
		if v.HasExample() && (examples < usage || examples > flags) {
			t.Errorf("%s: the examples do not follow the usage line, before the flags", page)
		}
		// The opening paragraph is the description's first: nothing else before the usage line.
		if head := strings.TrimSpace(out[:usage]); v.Long != "" && strings.Contains(head, "\n\n") {
			t.Errorf("%s: more than one paragraph before the usage line:\n%s", page, head)
		}
		end := strings.Index(out, "\nUse \"kubectl indexed options\"")
		if end < flags {
			end = len(out)
		}
		without := out[:flags] + out[end:]
		if n := strings.Count(without, "\n"); n > maxHelpLines {
			t.Errorf("%s: %d lines without the flags, want at most %d", page, n, maxHelpLines)
		}
		if lim, ok := shortHelp[page]; ok {
			if n := strings.Count(without, "\n"); n > lim.without {
				t.Errorf("%s: %d lines without the flags, want at most %d", page, n, lim.without)
			}
			if n := strings.Count(out, "\n"); n > lim.whole {
				t.Errorf("%s: %d lines of help, flags included, want at most %d (the details are in docs/%s.md)", page, n, lim.whole, v.Name())
			}
		}
		for _, word := range []string{"protobuf", "paginated"} {
			if strings.Contains(strings.ToLower(without), word) {
				t.Errorf("%s: help speaks of %s (internals belong in docs/%s.md)", page, word, v.Name())
			}
		}
		if examples >= 0 {
			lines := strings.Split(out[examples:flags], "\n")
			for i := 0; i+1 < len(lines); i++ {
				this, next := strings.TrimSpace(lines[i]), strings.TrimSpace(lines[i+1])
				if strings.HasPrefix(this, "#") && strings.HasPrefix(next, "#") && len(lines[i]) < 50 {
					t.Errorf("%s: a broken example comment: %q then %q", page, lines[i], lines[i+1])
				}
			}
		}
	}
}
