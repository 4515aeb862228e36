package simulate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// The pods the simulation leaves (Result.Pods) read by pkg/indexstatus give, index by index, the
// state, attempts and last exit code that the captured pods of the real run give.
func TestStatusViewMatchesCapturedPods(t *testing.T) {
	for _, name := range finalFixtures {
		t.Run(name, func(t *testing.T) {
			manifest, live, _ := loadFixture(t, name)
			raw, err := os.ReadFile(filepath.Join("..", "..", "test", "fixtures", name, "pods.json"))
			if err != nil {
				t.Fatal(err)
			}
			var pods corev1.PodList
			if err := json.Unmarshal(raw, &pods); err != nil {
				t.Fatal(err)
			}
			res, err := Simulate(manifest, nil, Options{Start: time.Unix(0, 0), KeepPods: true})
			if err != nil {
				t.Fatal(err)
			}
			real, err := indexstatus.Build(live, pods.Items, indexstatus.Options{Clock: fixedClock(time.Now()), AllIndexes: true})
			if err != nil {
				t.Fatal(err)
			}
			sim, err := indexstatus.Build(res.Job, res.Pods(), indexstatus.Options{Clock: fixedClock(time.Unix(0, 0).Add(res.End)), AllIndexes: true})
			if err != nil {
				t.Fatal(err)
			}
			if real.Phase != sim.Phase || len(real.Indexes) != len(sim.Indexes) {
				t.Fatalf("phase %s / %s, %d / %d indexes", real.Phase, sim.Phase, len(real.Indexes), len(sim.Indexes))
			}
			view := func(s indexstatus.IndexStatus) string {
				code := "-"
				if s.LastExitCode != nil {
					code = fmt.Sprint(*s.LastExitCode)
				}
				return fmt.Sprintf("%s attempts %d exit %s", s.State, s.Attempts, code)
			}
			for i := range real.Indexes {
				if a, b := view(real.Indexes[i]), view(sim.Indexes[i]); a != b {
					t.Errorf("index %d: captured %s, simulated %s", real.Indexes[i].Index, a, b)
				}
			}
		})
	}
}
