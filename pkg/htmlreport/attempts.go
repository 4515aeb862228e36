package htmlreport

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// AttemptFact is one attempt of a cell as its facts show it: where and when it ran and how it
// ended. Times are Unix seconds (0: not known); the page writes them in UTC.
type AttemptFact struct {
	N             int
	Start, Finish int64
	Node, Outcome string
}

// Timeline is the section of the page that draws attempts over time: Bins equal spans from
// Start to End (Unix seconds), and per bin how many attempts were running in it and how many
// ended in it, succeeded or failed. Attempts counts the attempts drawn; Words say what the
// chart is drawn from, or, with no times, that none are known.
type Timeline struct {
	Start     int64  `json:"start"`
	End       int64  `json:"end"`
	Running   []int  `json:"running"`
	Succeeded []int  `json:"succeeded"`
	Failed    []int  `json:"failed"`
	Attempts  int    `json:"attempts"`
	Words     string `json:"-"`
}

// timelineBins is how many spans the timeline has at most, whatever the Job's size.
const timelineBins = 96

// ExcludedState is the page's name of an index the Job never ran to the end because it failed
// with MaxFailedIndexesExceeded: status -o json gives it state Unfinished, and the Job's reason
// MaxFailedIndexesExceeded. The controller's syncJob, once failedIndexes holds more than
// maxFailedIndexes, sets FailureTarget (MaxFailedIndexesExceeded) and deletes every active
// pod (deleteActivePods) without adding its index to failedIndexes, and creates no pod again:
// an index in neither completedIndexes nor failedIndexes then never runs to the end.
const ExcludedState = "ExcludedByMaxFailedIndexes"

// excludedColor is a blue grey, apart from Unfinished's grey.
const excludedColor = "#78909c"

// excludedWords say the state in the legend.
func excludedWords(r *indexstatus.IndexedJobStatus) string {
	n := "maxFailedIndexes"
	if m := r.Policy.MaxFailedIndexes; m != nil {
		n = fmt.Sprintf("maxFailedIndexes %d", *m)
	}
	return "excluded by maxFailedIndexes: not run to the end, the Job failed when more indexes failed than " + n + " allows"
}

// attemptFacts are the attempts of an index as facts.
func attemptFacts(ix *indexstatus.IndexStatus) []AttemptFact {
	var out []AttemptFact
	for _, a := range ix.AttemptHistory {
		out = append(out, AttemptFact{N: a.Attempt, Start: unix(a.StartedAt), Finish: unix(a.FinishedAt), Node: a.Node, Outcome: outcome(a)})
	}
	return out
}

// outcome says how an attempt ended or where it is: "Failed, exit 1 (Error)".
func outcome(a indexstatus.Attempt) string {
	s := a.Phase
	if a.ExitCode != nil {
		s += ", exit " + strconv.Itoa(int(*a.ExitCode))
	}
	if a.Reason != "" {
		s += " (" + a.Reason + ")"
	}
	return s
}

func unix(t *time.Time) int64 {
	if t == nil || t.IsZero() {
		return 0
	}
	return t.Unix()
}

// timeline bins the attempts of r's indexes that have a start time: each is running from its
// start to its finish (or, not finished, to when the report was made), and ends in the bin of
// its finish. It reads every index's history, not only those whose facts the page carries,
// and costs the same few hundred bytes for any number of attempts.
func timeline(r *indexstatus.IndexedJobStatus) *Timeline {
	type run struct {
		start, end int64
		ended      bool
		phase      string
	}
	var runs []run
	observed := r.ObservedAt.Unix()
	for i := range r.Indexes {
		for _, a := range r.Indexes[i].AttemptHistory {
			if s := unix(a.StartedAt); s != 0 {
				e := unix(a.FinishedAt)
				runs = append(runs, run{start: s, end: cmp.Or(e, max(observed, s)), ended: e != 0, phase: a.Phase})
			}
		}
	}
	tl := &Timeline{Attempts: len(runs)}
	const scope = "Drawn from the attempts the report lists: those of every index that took more than one attempt or whose attempt did not succeed (an index that succeeded on its first attempt is not drawn), each from its pod's start to its finish."
	if len(runs) == 0 {
		tl.Words = "No attempt's times are known: no listed attempt has a pod that was read with a start time (pods gone, not yet started, or every index succeeded on its first attempt)."
		return tl
	}
	first, last := runs[0].start, runs[0].end
	for _, ru := range runs {
		first, last = min(first, ru.start), max(last, ru.end)
	}
	span := max(last-first, 1)
	tl.Start, tl.End = first, first+span
	// Pod times are in seconds: a span is never shorter than one.
	bins := int(min(span, timelineBins))
	tl.Running, tl.Succeeded, tl.Failed = make([]int, bins), make([]int, bins), make([]int, bins)
	bin := func(t int64) int { return min(int((t-first)*int64(bins)/span), bins-1) }
	ended, failed := 0, 0
	for _, ru := range runs {
		for b := bin(ru.start); b <= bin(ru.end); b++ {
			tl.Running[b]++
		}
		if !ru.ended {
			continue
		}
		ended++
		switch ru.phase {
		case "Succeeded":
			tl.Succeeded[bin(ru.end)]++
		case "Failed":
			tl.Failed[bin(ru.end)]++
			failed++
		}
	}
	tl.Words = fmt.Sprintf("%d %s with a known start, from %s to %s (%s); %d ended, %d of them failed. %s",
		tl.Attempts, textwrap.Plural(tl.Attempts, "attempt", "attempts"), utc(first), utc(tl.End), time.Duration(span)*time.Second, ended, failed, scope)
	return tl
}

func utc(sec int64) string { return time.Unix(sec, 0).UTC().Format("2006-01-02 15:04:05 UTC") }

// attemptRows turns attempts into the data's flat list: per attempt cell, number, start and
// finish (seconds after base, -1: not known), node and outcome (indexes into strs).
func attemptRows(out []int64, cell int, as []AttemptFact, base int64, st *strs) []int64 {
	rel := func(t int64) int64 {
		if t == 0 {
			return -1
		}
		return t - base
	}
	for _, a := range as {
		out = append(out, int64(cell), int64(a.N), rel(a.Start), rel(a.Finish), int64(st.id(a.Node)), int64(st.id(strings.TrimSpace(a.Outcome))))
	}
	return out
}
