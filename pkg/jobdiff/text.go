package jobdiff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

const maxValueWidth = 60

// WriteText writes the report for people: the live Job's state, the differences with their
// class, the warnings, and the plan at the end.
func WriteText(w io.Writer, r *Report, now time.Time) error {
	ew := &errWriter{w: w}
	job := r.Job.Name
	if r.Job.Namespace != "" {
		job = r.Job.Namespace + "/" + r.Job.Name
	}
	ew.printf("Job %s: %s\n", job, describeState(r.Live, now))

	if len(r.Differences) == 0 {
		ew.printf("\nNo differences: the live Job already has everything the desired Job sets.\n")
	} else {
		ew.printf("\nDifferences (%d): %d patchable live, %d conditional, %d need a new Job\n",
			len(r.Differences), r.Count(ClassLive), r.Count(ClassConditional), r.Count(ClassNewJob))
		seen := map[string]bool{}
		for _, d := range r.Differences {
			ew.printf("  %s %s\n", changeMark(d.Change), d.Path)
			ew.printf("      live: %s   desired: %s\n", showValue(d.Live, d.Live != nil), showValue(d.Desired, d.Desired != nil))
			ew.printf("      %s\n", describeClass(d, seen[d.Condition]))
			seen[d.Condition] = true
		}
	}

	if len(r.Warnings) > 0 {
		ew.printf("\nWarnings:\n")
		for _, wa := range r.Warnings {
			ew.printf("  ! %s (%s): %s\n", wa.Code, wa.Side, wa.Message)
		}
	}

	if r.Server != nil {
		ew.printf("\nServer-side dry run (%d probes, %d disagreements):\n", len(r.Server.Probes), r.Server.Disagreements)
		for _, p := range r.Server.Probes {
			mark := "ok"
			if !p.Agrees {
				mark = "DISAGREES (a bug in kubectl indexed, please report it)"
			}
			ew.printf("  %s: expected %s, server %s: %s\n", p.Name, p.Expected, p.Outcome, mark)
			if p.Message != "" && (!p.Agrees || p.Outcome == OutcomeDropped) {
				ew.printf("      %s\n", p.Message)
			}
		}
	}

	if len(r.Plan) > 0 {
		ew.printf("\nPlan:\n")
		for i, s := range r.Plan {
			ew.printf("  %d. %s\n", i+1, s.Description)
			for _, c := range s.Commands {
				ew.printf("       %s\n", c)
			}
		}
	}
	return ew.err
}

func describeState(s LiveState, now time.Time) string {
	var parts []string
	phase := string(s.Phase)
	if s.Reason != "" {
		phase += " (" + s.Reason + ")"
	}
	parts = append(parts, phase)
	parts = append(parts, fmt.Sprintf("%d active, %d succeeded, %d failed", s.Active, s.Succeeded, s.Failed))
	if s.StartTime != nil && !now.IsZero() {
		parts = append(parts, "started "+now.Sub(*s.StartTime).Round(time.Second).String()+" ago")
	}
	if s.TemplateMutable {
		parts = append(parts, "pod template may change")
	}
	return strings.Join(parts, ", ")
}

func changeMark(c Change) string {
	switch c {
	case ChangeSet:
		return "+"
	case ChangeUnset:
		return "-"
	}
	return "~"
}

// describeClass words the class; a condition already printed is not repeated.
func describeClass(d Difference, repeated bool) string {
	cond := d.Condition
	if repeated {
		cond = "as above"
	}
	switch d.Class {
	case ClassLive:
		return "patchable live"
	case ClassConditional:
		holds := "does not hold now"
		if d.HoldsNow {
			holds = "holds now"
		}
		return fmt.Sprintf("conditional (%s): %s", holds, cond)
	default:
		return "needs a new Job: " + cond
	}
}

func showValue(v any, present bool) string {
	if !present {
		return "(unset)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > maxValueWidth {
		s = s[:maxValueWidth-3] + "..."
	}
	return s
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, a ...any) {
	if e.err != nil {
		return
	}
	_, e.err = fmt.Fprintf(e.w, format, a...)
}
