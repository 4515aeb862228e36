package cmd

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Every `kubectl indexed VERB ...` line in any verb's examples names a verb that exists and only
// flags that verb (or the root) takes: retry's example once ran reconcile with --results, a
// flag reconcile does not have, so the example failed as printed.
func TestHelpExamplesParse(t *testing.T) {
	root := NewCmdIndexed(genericiooptions.NewTestIOStreamsDiscard())
	var checked int
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		// Join the continuation lines of an example, then split pipelines and sequences.
		text := strings.ReplaceAll(c.Example, "\\\n", " ")
		for _, line := range strings.Split(text, "\n") {
			for _, part := range strings.FieldsFunc(line, func(r rune) bool { return r == '|' || r == ';' || r == '&' || r == '>' || r == '<' }) {
				fields := strings.Fields(part)
				i := indexOf(fields, "indexed")
				if i < 1 || fields[i-1] != "kubectl" || strings.HasPrefix(strings.TrimSpace(line), "#") {
					continue
				}
				args := fields[i+1:]
				verb, rest, err := root.Find(args)
				if err != nil || verb == root {
					t.Errorf("%s: example %q: no such verb (%v)", c.CommandPath(), strings.TrimSpace(line), err)
					continue
				}
				for _, a := range rest {
					if a == "--" {
						break // the worker's command follows
					}
					if !strings.HasPrefix(a, "-") || a == "-" {
						continue
					}
					name := strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-")
					var found bool
					if strings.HasPrefix(a, "--") {
						found = verb.Flags().Lookup(name) != nil || verb.InheritedFlags().Lookup(name) != nil
					} else {
						found = verb.Flags().ShorthandLookup(name[:1]) != nil || verb.InheritedFlags().ShorthandLookup(name[:1]) != nil
					}
					if !found {
						t.Errorf("%s: example %q: %s has no flag %s", c.CommandPath(), strings.TrimSpace(line), verb.CommandPath(), a)
					}
				}
				checked++
			}
		}
	}
	walk(root)
	if checked < 30 {
		t.Errorf("only %d example commands checked", checked)
	}
}

func indexOf(s []string, w string) int {
	for i, x := range s {
		if x == w {
			return i
		}
	}
	return -1
}
