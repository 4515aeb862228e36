// Package oracle checks the plugin against the v1.37.2 Job controller's own code (job/, copied
// from the module cache by copy.sh): random Indexed Jobs played by both must end the same way.
package oracle

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

var (
	seed  = flag.Uint64("oracle.seed", 1, "seed of the random Jobs")
	cases = flag.Int("oracle.cases", 2000, "random Jobs to play")
)

// regressions are every disagreement the property test found, named.
func regressions(t *testing.T) []*Case {
	t.Helper()
	b, err := os.ReadFile("testdata/regressions.json")
	if err != nil {
		t.Fatal(err)
	}
	var cs []*Case
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatalf("testdata/regressions.json: %v", err)
	}
	return cs
}

func compare(c *Case) (ctl, sim Verdict, diffs []string, err error) {
	ctl, err = c.controller()
	if err != nil {
		return ctl, sim, nil, fmt.Errorf("controller: %w", err)
	}
	sim, err = c.simulated()
	if err != nil {
		return ctl, sim, nil, fmt.Errorf("simulate: %w", err)
	}
	return ctl, sim, sim.diff(ctl), nil
}

// TestSimulateRegressions plays every kept disagreement: simulate must now agree.
func TestSimulateRegressions(t *testing.T) {
	for _, c := range regressions(t) {
		t.Run(c.Name, func(t *testing.T) {
			ctl, sim, diffs, err := compare(c)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("controller: %s", ctl)
			if len(diffs) > 0 {
				t.Errorf("simulate disagrees with the controller (%s):\n  %s\ncontroller: %s\nsimulate:   %s", c.Why, strings.Join(diffs, "\n  "), ctl, sim)
			}
		})
	}
}

// TestSimulateAgreesWithController plays -oracle.cases random Indexed Jobs from -oracle.seed.
func TestSimulateAgreesWithController(t *testing.T) {
	r := rand.New(rand.NewPCG(*seed, 0x5eed))
	start := time.Now()
	bad := 0
	for k := 0; k < *cases; k++ {
		c := random(r, fmt.Sprintf("seed%d-case%d", *seed, k))
		ctl, sim, diffs, err := compare(c)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if len(diffs) == 0 {
			continue
		}
		bad++
		if bad <= 5 {
			js, _ := json.Marshal(c)
			t.Errorf("%s: simulate disagrees with the controller:\n  %s\ncontroller: %s\nsimulate:   %s\ncase (keep it in testdata/regressions.json): %s",
				c.Name, strings.Join(diffs, "\n  "), ctl, sim, js)
		}
	}
	t.Logf("%d random Jobs (seed %d) in %s: %d disagreements", *cases, *seed, time.Since(start).Round(time.Millisecond), bad)
}
