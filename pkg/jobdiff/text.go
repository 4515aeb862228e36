package jobdiff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/lint"
)

const maxValueWidth = 60

// Width is the width the text report fits by default (-o wide does not wrap).
const Width = 80

// WriteText writes the report for people, fitting Width columns: the live Job's state, the
// differences with their class, the warnings, and the plan at the end.
func WriteText(w io.Writer, r *Report, now time.Time) error {
	return WriteTextWidth(w, r, now, Width)
}

// WriteTextWidth is WriteText with the prose (conditions, warnings, the plan's steps) wrapped
// at width columns; 0 does not wrap. Commands are never wrapped, so they can be copied.
func WriteTextWidth(w io.Writer, r *Report, now time.Time, width int) error {
	ew := &errWriter{w: w, width: width}
	job := r.Job.Name
	if r.Job.Namespace != "" {
		job = r.Job.Namespace + "/" + r.Job.Name
	}
	ew.para(0, 2, fmt.Sprintf("Job %s: %s", job, describeState(r.Live, now)))

	if len(r.Differences) == 0 {
		ew.printf("\nNo differences: the live Job already has everything the desired Job sets.\n")
	} else {
		ew.printf("\nDifferences (%d): %d patchable live, %d conditional, %d need a new Job\n",
			len(r.Differences), r.Count(ClassLive), r.Count(ClassConditional), r.Count(ClassNewJob))
		seen := map[string]bool{}
		for _, d := range r.Differences {
			ew.printf("  %s %s\n", changeMark(d.Change), d.Path)
			live, desired := showValue(d.Live), showValue(d.Desired)
			if line := fmt.Sprintf("      live: %s   desired: %s", live, desired); width <= 0 || len(line) <= width {
				ew.printf("%s\n", line)
			} else {
				// Too long for one line: one value a line, aligned.
				ew.printf("      live:    %s\n      desired: %s\n", live, desired)
			}
			ew.para(6, 8, describeClass(d, seen[d.Condition]))
			seen[d.Condition] = true
		}
	}

	if len(r.Warnings) > 0 {
		ew.printf("\nWarnings:\n")
		for _, wa := range r.Warnings {
			ew.para(2, 4, fmt.Sprintf("! %s: %s", WarningTitle(wa.Code), wa.Message))
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
			ew.para(2, 5, fmt.Sprintf("%d. %s", i+1, s.Description))
			for _, c := range s.Commands {
				ew.printf("       %s\n", c)
			}
		}
	}
	return ew.err
}

func describeState(s LiveState, now time.Time) string {
	phase := string(s.Phase)
	if s.Reason != "" {
		phase += " (" + s.Reason + ")"
	}
	parts := []string{phase, fmt.Sprintf("%d active, %d succeeded, %d failed", s.Active, s.Succeeded, s.Failed)}
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

func showValue(v any) string {
	if v == nil {
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
	w     io.Writer
	width int
	err   error
}

// para writes text indented by first columns, its continuation lines by rest, wrapped at the
// writer's width (0: not wrapped).
func (e *errWriter) para(first, rest int, text string) {
	for i, l := range lint.WrapText(text, first, rest, e.width) { // width 0: text as it is
		ind := first
		if i > 0 {
			ind = rest
		}
		e.printf("%s%s\n", strings.Repeat(" ", ind), l)
	}
}

func (e *errWriter) printf(format string, a ...any) {
	if e.err != nil {
		return
	}
	_, e.err = fmt.Fprintf(e.w, format, a...)
}
