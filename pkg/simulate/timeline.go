package simulate

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
)

// TimelineLine is one line of the grouped timeline: the events of one instant, type and cause.
type TimelineLine struct {
	At      time.Duration
	Message string
	// Events is how many events the line stands for.
	Events int
}

// groupSetWidth is how many bytes of a group's index set a line shows.
const groupSetWidth = 40

// GroupEvents makes the timeline's lines from events (in time order): the events about one
// index that happen at the same instant with the same type and cause (Event.Cause) become one
// line naming their indexes as ranges ("indexes 11-20 (10) failed: podFailurePolicy rule 0
// (FailIndex)"), at the place of the first of them; every other event is a line of its own.
func GroupEvents(evs []Event) []TimelineLine {
	type group struct {
		first Event
		ix    indexes.Builder
		n     int
	}
	var out []TimelineLine
	for start := 0; start < len(evs); {
		end := start
		for end < len(evs) && evs[end].At == evs[start].At {
			end++
		}
		var order []*group
		byKey := map[string]*group{}
		for _, e := range evs[start:end] {
			var g *group
			if e.Cause != "" && e.Index >= 0 {
				key := e.Type + "\x00" + e.Cause
				g = byKey[key]
				if g == nil {
					g = &group{first: e}
					byKey[key] = g
					order = append(order, g)
				}
			} else {
				g = &group{first: e}
				order = append(order, g)
			}
			if e.Index >= 0 {
				g.ix.Add(e.Index)
			}
			g.n++
		}
		for _, g := range order {
			line := TimelineLine{At: g.first.At, Message: g.first.Message, Events: g.n}
			if g.n > 1 {
				set := g.ix.Set()
				r := strings.NewReplacer("{indexes}", fmt.Sprintf("indexes %s (%d)", set.Truncated(groupSetWidth), set.Len()), "{pod}", ": pods")
				line.Message = r.Replace(g.first.Cause)
			}
			out = append(out, line)
		}
		start = end
	}
	return out
}
