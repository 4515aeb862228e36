package lineage

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// APIVersion and Kind identify the lineage report in JSON and YAML.
const (
	APIVersion = contract.APIVersion
	Kind       = contract.IndexedJobLineage
)

// Member is one Job of a lineage with its indexstatus report (built with every index).
type Member struct {
	Job    *batchv1.Job
	Report *indexstatus.IndexedJobStatus
	// Lineage, when set, is Job's lineage already read and resolved (ReadResolved): the only
	// way in for a retry whose index map is kept in a ConfigMap. Nil: BuildReportOf reads it.
	Lineage *Lineage
}

// Report is the shard-level view of a run across its root Job and every retry. Its JSON field
// names are a public contract (docs/retry.md).
type Report struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Root names the root Job (present even when the Job itself is gone).
	Root contract.JobRef `json:"root"`
	// Jobs are the root and its retries, in attempt order.
	Jobs []JobSummary `json:"jobs"`
	// Summary counts shards by final state; Shards is their number.
	Shards  int                 `json:"shards"`
	Summary indexstatus.Summary `json:"summary"`
	// NoEvidence counts the shards of the manifest that no Job of the lineage still shows
	// (state Missing: the root was deleted, by hand or by its TTL, and no retry ran them).
	NoEvidence int `json:"noEvidence"`
	// Unsettled counts the shards that a Job still running (no Complete or Failed condition)
	// runs: their result is not settled until it finishes, so they are not counted in Summary
	// and the report is not complete (a retry re-running shards the root succeeded included).
	Unsettled int `json:"unsettled"`
	// ManifestFrom says where the number of shards comes from: the root Job's completions,
	// or, when the root is gone, the manifest copy in a retry's shard ConfigMap; "" when it
	// could not be read (the report is then never complete).
	ManifestFrom string `json:"manifestFrom,omitempty"`
	// Complete is true only when every shard of the manifest succeeded in some Job of the
	// lineage.
	Complete bool `json:"complete"`
	// Missing are the root indexes without a success.
	Missing string `json:"missing"`
	// Verdict says it in words: "5 of 6 shards succeeded; shard s-2 failed as invalid input
	// in seed and seed-r1".
	Verdict string `json:"verdict"`
	// ShardStatuses has one entry per shard (root completion index).
	ShardStatuses []ShardStatus `json:"shardStatuses"`
	Notes         []string      `json:"notes,omitempty"`
}

// JobSummary is one Job of the lineage.
type JobSummary struct {
	Name string `json:"name"`
	UID  string `json:"uid,omitempty"`
	// Attempt is 0 for the root, then the retry's number.
	Attempt int    `json:"attempt"`
	Parent  string `json:"parent,omitempty"`
	Phase   string `json:"phase"`
	// Completions is the Job's number of indexes; OriginalIndexes the root indexes they run.
	Completions     int         `json:"completions"`
	OriginalIndexes indexes.Set `json:"originalIndexes"`
	Succeeded       int         `json:"succeeded"`
	Failed          int         `json:"failed"`
}

// ShardStatus is one shard (root completion index) across the lineage.
type ShardStatus struct {
	Index   int               `json:"index"`
	ShardID string            `json:"shardID,omitempty"`
	State   indexstatus.State `json:"state"`
	// From is the Job whose result stands: the first that succeeded it, else the last that ran
	// it; Attempt is that Job's attempt number.
	From    string `json:"from"`
	Attempt int    `json:"attempt"`
	// Runs lists every Job that ran the shard, in attempt order, with the index it had there.
	Runs         []Run  `json:"runs"`
	LastExitCode *int32 `json:"lastExitCode"`
	// InvalidInput is true when the shard's last failure was the worker's invalid-input exit
	// code (the FailIndex rule create writes).
	InvalidInput bool   `json:"invalidInput"`
	Detail       string `json:"detail,omitempty"`
	// Unsettled is true when a Job that runs the shard has not finished (Report.Unsettled).
	Unsettled bool `json:"unsettled,omitempty"`
}

// Run is one Job's run of a shard.
type Run struct {
	Job   string            `json:"job"`
	Index int               `json:"index"`
	State indexstatus.State `json:"state"`
	// LastExitCode and InvalidInput are the run's own, so that the verdict says per Job what
	// happened (a shard can fail with exit 1 in the root and as invalid input in a retry).
	LastExitCode *int32 `json:"lastExitCode,omitempty"`
	InvalidInput bool   `json:"invalidInput,omitempty"`
	// LastReason, LastContainer and Rule are the run's own terminated reason, the container
	// its exit code belongs to, and the podFailurePolicy rule its last failure matched (as
	// the index's in IndexedJobStatus): the verdict groups failed shards by them.
	LastReason    string                 `json:"lastReason,omitempty"`
	LastContainer string                 `json:"lastContainer,omitempty"`
	Rule          *indexstatus.RuleMatch `json:"podFailurePolicyRule,omitempty"`
}

// StateMissing is the state of a shard of the manifest that no Job of the lineage shows: the
// root that ran it is gone (deleted by hand or by its TTL) and no retry ran it. Its result is
// unknown, so the lineage is not complete.
const StateMissing indexstatus.State = "Missing"

// Manifest is the shard list of the manifest a lineage runs, for when the root Job is gone:
// the canonical manifest that create copies into every shard ConfigMap, a retry's included.
type Manifest struct {
	// IDs are the shard IDs in root completion index order.
	IDs []string
	// From says where it was read ("configmap NAME").
	From string
}

// ManifestFromConfigMap reads the manifest copy (key manifest.json) of a shard ConfigMap,
// checking it against wantHash (the manifest-hash annotation of the Job that mounts it; ""
// to skip the check). ok is false, with no error, when the ConfigMap holds no copy (a
// manifest too large to be mounted).
func ManifestFromConfigMap(cm *corev1.ConfigMap, wantHash string) (m *Manifest, ok bool, err error) {
	parsed, ok, err := shards.ManifestFromConfigMap(cm, wantHash)
	if !ok || err != nil {
		return nil, ok, err
	}
	return &Manifest{IDs: parsed.IDs(), From: "configmap " + cm.Name}, true, nil
}

// BuildReportOf folds the members (the root and its retries) of one run (its root's name, and
// UID when known: "" takes the root Job of that name among the members) into one report per
// original shard, and counts every shard of the manifest: the
// root's completions, or when the root is gone, manifest's (nil: not known). A shard that no
// Job shows is Missing; without the root and without a manifest the shard count is unknown
// and the report is never complete. A Job of the root's name with another UID (the root
// deleted and a Job of its name made again) is not this run's root, and the retries of another
// run are not this run's (InRun): both are left out with a note.
func BuildReportOf(namespace string, run RunID, members []Member, manifest *Manifest, notes []string) (*Report, error) {
	rootName := run.Root
	isRoot := func(m Member) bool { return !IsRetry(m.Job) && m.Job.Name == rootName }
	if i := slices.IndexFunc(members, isRoot); run.RootUID == "" && i >= 0 {
		run.RootUID = string(members[i].Job.UID)
	}
	var root *Member
	var retries []Member
	for _, m := range members {
		l, isRetry, err := m.Lineage, m.Lineage != nil, error(nil)
		if l == nil {
			l, isRetry, err = Read(m.Job)
		}
		if err == nil && isRetry && !l.Resolved() {
			err = fmt.Errorf("its index map, in ConfigMap %q, was not read", l.OriginalFrom.ConfigMap)
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("Job %q is left out: %v.", m.Job.Name, err))
			continue
		}
		switch {
		case !isRetry && m.Job.Name == rootName && InRun(m.Job, run):
			root = &m
		case !isRetry && m.Job.Name == rootName:
			notes = append(notes, fmt.Sprintf("Job %q (uid %s) is not the root of this run: the root, uid %s, was deleted and a Job of its name made again; that Job and its retries are another run, left out.", rootName, m.Job.UID, run.RootUID))
		case isRetry && l.RootJob == rootName && (run.RootUID == "" || l.RootJobUID == run.RootUID):
			m.Lineage = l
			retries = append(retries, m)
		case isRetry && l.RootJob == rootName:
			notes = append(notes, fmt.Sprintf("Job %q retries an earlier Job named %q (uid %s), not this one (uid %s): left out.", m.Job.Name, rootName, l.RootJobUID, run.RootUID))
		}
	}
	r := &Report{APIVersion: APIVersion, Kind: Kind, Root: contract.JobRef{Name: rootName, Namespace: namespace, UID: run.RootUID}}
	if root == nil {
		notes = append(notes, fmt.Sprintf("The root Job %q is gone: only the shards its retries ran are shown, without the root's own results.", rootName))
	}
	slices.SortStableFunc(retries, func(a, b Member) int {
		// By name within an attempt, as read (eval-r1-4 before eval-r1-17): the Jobs of a
		// plain retry are made together, their creation times a second apart at random.
		return cmp.Or(cmp.Compare(a.Lineage.Attempt, b.Lineage.Attempt), NaturalCompare(a.Job.Name, b.Job.Name),
			a.Job.CreationTimestamp.Compare(b.Job.CreationTimestamp.Time))
	})
	all := retries
	if root != nil {
		all = append([]Member{*root}, retries...)
	}

	total := -1 // shards in the manifest; -1: unknown
	switch {
	case root != nil && root.Report != nil:
		total, r.ManifestFrom = int(root.Report.Completions), "job "+root.Job.Name
	case manifest != nil:
		total, r.ManifestFrom = len(manifest.IDs), manifest.From
	}
	shardAt := map[int]*ShardStatus{}
	var running []string // the Jobs not finished that run shards
	for _, e := range all {
		if e.Lineage != nil && total >= 0 && !e.Lineage.Original.IsEmpty() && e.Lineage.Original.Max() >= total {
			// A retry writes only root indexes of its run: this map was changed by hand, and
			// counting it would add shards the manifest does not have.
			notes = append(notes, fmt.Sprintf("Job %q is left out: its index map names root index %d, but the run has %d shards (0-%d, from %s): its lineage annotations were changed by hand.",
				e.Job.Name, e.Lineage.Original.Max(), total, total-1, r.ManifestFrom))
			continue
		}
		unfinished := !jobpolicy.JobFinished(e.Job)
		if unfinished && len(e.Report.Indexes) > 0 {
			running = append(running, e.Job.Name)
		}
		js := JobSummary{Name: e.Job.Name, UID: string(e.Job.UID), Phase: string(e.Report.Phase), Completions: int(e.Report.Completions)}
		if e.Lineage != nil {
			js.Attempt, js.Parent, js.OriginalIndexes = e.Lineage.Attempt, e.Lineage.ParentJob, e.Lineage.Original
		} else if js.Completions > 0 {
			js.OriginalIndexes = indexes.Range(0, js.Completions-1)
		}
		js.Succeeded, js.Failed = e.Report.Summary.Succeeded, e.Report.Summary.Failed
		r.Jobs = append(r.Jobs, js)
		code := invalidInputCode(e.Job)
		for _, ix := range e.Report.Indexes {
			ri, ok := e.Lineage.RootIndex(ix.Index)
			if !ok {
				continue
			}
			s := shardAt[ri]
			if s == nil {
				s = &ShardStatus{Index: ri}
				shardAt[ri] = s
			}
			s.ShardID = cmp.Or(s.ShardID, ix.ShardID)
			// A Job create did not make names no invalid-input code: its own FailIndex rule on
			// the exit code says the input cannot succeed.
			invalid := ix.State == indexstatus.StateFailed && ix.Rule != nil && ix.Rule.Action == string(batchv1.PodFailurePolicyActionFailIndex) &&
				ix.LastExitCode != nil && (code == nil || *ix.LastExitCode == *code)
			s.Runs = append(s.Runs, Run{Job: e.Job.Name, Index: ix.Index, State: ix.State, LastExitCode: ix.LastExitCode, InvalidInput: invalid,
				LastReason: ix.LastReason, LastContainer: ix.LastContainer, Rule: ix.Rule})
			s.Unsettled = s.Unsettled || unfinished
			if s.State == indexstatus.StateSucceeded {
				continue // the first success stands
			}
			s.State, s.From, s.Attempt = ix.State, e.Job.Name, js.Attempt
			s.LastExitCode, s.Detail = ix.LastExitCode, ix.Detail
			s.InvalidInput = invalid
		}
	}
	if total >= 0 {
		for i := range total {
			if shardAt[i] != nil {
				continue
			}
			s := &ShardStatus{Index: i, State: StateMissing, Detail: "no Job of the lineage shows it: the root that ran it is gone and no retry ran it"}
			if manifest != nil && root == nil {
				s.ShardID = manifest.IDs[i]
			}
			shardAt[i] = s
		}
	} else if root == nil {
		notes = append(notes, "The manifest could not be read (no retry's shard ConfigMap holds a copy): how many shards it has is unknown, so the run is not called complete.")
	}
	order := slices.Sorted(maps.Keys(shardAt))
	var missing indexes.Builder
	var failed []ShardStatus
	for _, i := range order {
		s := shardAt[i]
		r.ShardStatuses = append(r.ShardStatuses, *s)
		if s.State != indexstatus.StateSucceeded {
			missing.Add(i)
		}
		if s.Unsettled {
			r.Unsettled++
			continue
		}
		r.Summary.Add(s.State)
		if s.State == indexstatus.StateFailed {
			failed = append(failed, *s)
		}
		if s.State == StateMissing {
			r.NoEvidence++
		}
	}
	r.Shards = len(order)
	r.Missing = missing.Set().String()
	r.Complete = total >= 0 && r.Shards > 0 && r.Summary.Succeeded == r.Shards
	r.Verdict = verdict(r, failed, running)
	r.Notes = notes
	return r, nil
}

func invalidInputCode(job *batchv1.Job) *int32 {
	c, err := strconv.ParseInt(job.Annotations[shards.Prefix+"invalid-input-exit-code"], 10, 32)
	if err != nil {
		return nil // none: a Job create did not make
	}
	return ptr.To(int32(c))
}

// verdictShards is how many shards the verdict names in a list.
const verdictShards = 5

// totalUnknown reports whether the number of shards of the run is unknown: no root Job and no
// manifest copy to count them (ManifestFrom is then empty), so r.Shards counts only those shown.
func (r *Report) totalUnknown() bool { return r.ManifestFrom == "" }

func verdict(r *Report, failed []ShardStatus, running []string) string {
	var b strings.Builder
	if r.totalUnknown() {
		fmt.Fprintf(&b, "%d of the %s shown succeeded; the run's total number of shards is unknown (its root Job is gone and no manifest copy was read)",
			r.Summary.Succeeded, textwrap.Count(r.Shards, "shard", "shards"))
	} else {
		fmt.Fprintf(&b, "%d of %s succeeded", r.Summary.Succeeded, textwrap.Count(r.Shards, "shard", "shards"))
	}
	if len(failed) > 0 {
		b.WriteString("; " + failedClauses(r, failed))
	}
	if r.NoEvidence > 0 {
		var names []string
		for _, s := range r.ShardStatuses {
			if s.State != StateMissing {
				continue
			}
			if len(names) == verdictShards {
				names = append(names, "...")
				break
			}
			names = append(names, shardName(s))
		}
		fmt.Fprintf(&b, "; %d %s without a result (%s): the root Job that ran %s is gone", r.NoEvidence, textwrap.Plural(r.NoEvidence, "shard", "shards"), strings.Join(names, ", "), textwrap.Plural(r.NoEvidence, "it", "them"))
	}
	if r.Unsettled > 0 {
		fmt.Fprintf(&b, "; %d %s by %s still running (%s): not settled until %s",
			r.Unsettled, textwrap.Plural(r.Unsettled, "shard is run", "shards are run"), textwrap.Plural(len(running), "a Job", "Jobs"),
			strings.Join(running, ", "), textwrap.Plural(len(running), "it finishes", "they finish"))
	}
	if n := r.Shards - r.Summary.Succeeded - r.Summary.Failed - r.NoEvidence - r.Unsettled; n > 0 {
		fmt.Fprintf(&b, "; %d not finished", n)
	}
	return b.String()
}

func runOutcome(run Run) string {
	switch {
	case run.State != indexstatus.StateFailed:
		return strings.ToLower(string(run.State))
	case run.InvalidInput && run.LastExitCode != nil:
		return fmt.Sprintf("failed as invalid input (exit %d)", *run.LastExitCode)
	case run.InvalidInput:
		return "failed as invalid input"
	}
	// As status words a failed attempt (exitWords): "exit code 1 in container embed, OOMKilled;
	// podFailurePolicy rule 0 (FailIndex)".
	var parts []string
	switch {
	case run.LastExitCode != nil:
		w := fmt.Sprintf("exit code %d", *run.LastExitCode)
		if run.LastContainer != "" {
			w += " in container " + run.LastContainer
		}
		if run.LastReason != "" && run.LastReason != "Error" && run.LastReason != "Completed" {
			w += ", " + run.LastReason
		}
		parts = append(parts, w)
	case run.LastReason != "":
		parts = append(parts, "pod "+run.LastReason)
	}
	if m := run.Rule; m != nil {
		parts = append(parts, fmt.Sprintf("podFailurePolicy rule %d (%s)", m.Index, m.Action))
	}
	if len(parts) == 0 {
		return "failed"
	}
	return "failed (" + strings.Join(parts, "; ") + ")"
}

func shardName(s ShardStatus) string {
	return cmp.Or(s.ShardID, strconv.Itoa(s.Index)) // the shard of a Job create did not make is its index
}

func andList(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// textWidth is the width the default view fits; -o wide fits indexstatus.WideWidth (160), as
// status -o wide: its paragraphs wrap there, a Job's ROOT INDEXES and a shard's DETAIL are cut
// to what the line leaves (-o json has them whole).
const textWidth = 80

// maxGroups is how many groups of shards the default view shows.
const maxGroups = 10

// PrintText writes the report for a terminal: the Jobs, the verdict, and the shards that are
// not simply succeeded in the root. By default those shards are grouped by cause (state, the
// Jobs they went through and their states there, the exit code) in 80 columns, each group with
// its count, its root indexes as ranges and the words of its first shard; with all, every
// shard has a row, unwrapped.
func PrintText(w io.Writer, r *Report, all bool) error {
	p := &printer{w: w, width: textWidth}
	if all {
		p.width = indexstatus.WideWidth
	}
	total := fmt.Sprintf("%d %s", r.Shards, textwrap.Plural(r.Shards, "shard", "shards"))
	if r.totalUnknown() {
		total += " shown of an unknown total"
	}
	p.para(fmt.Sprintf("Lineage of job %s (namespace %s): %d %s, %s", r.Root.Name, r.Root.Namespace,
		len(r.Jobs), textwrap.Plural(len(r.Jobs), "Job", "Jobs"), total), "")
	p.printf("\n")
	tw := textwrap.NewTable(w, 2)
	_, _ = fmt.Fprintln(tw, "JOB\tATTEMPT\tPARENT\tPHASE\tINDEXES\tSUCCEEDED\tFAILED\tROOT INDEXES")
	for _, j := range r.Jobs {
		limit := 20
		if all {
			limit = 60
		}
		_, _ = fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%d\t%s\n", j.Name, j.Attempt, cmp.Or(j.Parent, "-"), j.Phase, j.Completions, j.Succeeded, j.Failed, j.OriginalIndexes.Truncated(limit))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	p.printf("\n")
	p.para(r.Verdict+".", "")
	var rows []ShardStatus
	for _, s := range r.ShardStatuses {
		if all || s.State != indexstatus.StateSucceeded || len(s.Runs) > 1 {
			rows = append(rows, s)
		}
	}
	if all && len(rows) > 0 {
		// DETAIL is added once the other columns are aligned, cut to what the width leaves.
		var table strings.Builder
		tw = textwrap.NewTable(&table, 2)
		_, _ = fmt.Fprintln(tw, "INDEX\tSHARD\tSTATE\tFROM\tJOBS (INDEX THERE)\tEXIT\t")
		for _, s := range rows {
			_, _ = fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t\n", s.Index, cmp.Or(s.ShardID, "-"), s.State, s.From, runsText(s.Runs), exitText(s.LastExitCode))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		lines := strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n")
		p.printf("\n%sDETAIL\n", lines[0])
		for k, l := range lines[1:] {
			p.printf("%s\n", strings.TrimRight(l+indexstatus.Cut(rows[k].Detail, p.width-len(l)), " "))
		}
	} else if len(rows) > 0 {
		p.groups(r, rows)
	}
	for _, n := range r.Notes {
		p.printf("\n")
		p.para("Note: "+n, "  ")
	}
	return p.err
}

// exitText is an exit code as the text view shows it: "-" when there is none.
func exitText(code *int32) string {
	if code == nil {
		return "-"
	}
	return strconv.Itoa(int(*code))
}

// runsText is the Jobs a shard went through, with its index there: "seed(2):Failed
// retry-1(0):Succeeded".
func runsText(runs []Run) string {
	out := make([]string, len(runs))
	for k, run := range runs {
		out[k] = fmt.Sprintf("%s(%d):%s", run.Job, run.Index, run.State)
	}
	return strings.Join(out, " ")
}

// groups prints the shards by cause (causeKey: their state, exit code, and per attempt what
// happened, whichever Job ran them, so that one Job per shard still makes one group): a row
// per group, then its first shard's words.
func (p *printer) groups(r *Report, rows []ShardStatus) {
	attempts := attemptOf(r)
	order, _ := groupBy(rows, func(s *ShardStatus) string {
		return string(s.State) + "\n" + exitText(s.LastExitCode) + "\n" + causeKey(s, attempts)
	})
	p.printf("\n")
	for k, g := range order {
		if k == maxGroups {
			p.printf("... and %s more; -o wide lists every shard.\n", textwrap.Count(len(order)-maxGroups, "group", "groups"))
			break
		}
		s, n, set := g.shards[0], len(g.shards), g.set.Set()
		exit := ""
		if s.LastExitCode != nil {
			exit = fmt.Sprintf(", exit %d", *s.LastExitCode)
		}
		via := ", no Job of the lineage shows " + textwrap.Plural(n, "it", "them")
		if len(s.Runs) > 0 {
			via = ", via " + g.viaText()
		}
		p.para(fmt.Sprintf("%s, %d %s%s%s: %s %s", s.State, n, textwrap.Plural(n, "shard", "shards"), exit,
			via, textwrap.Plural(set.Len(), "index", "indexes"), set.Truncated(textWidth-10)), "    ")
		name := strconv.Itoa(s.Index)
		if s.ShardID != "" {
			name += " (" + s.ShardID + ")"
		}
		if n > 1 {
			name += fmt.Sprintf(" and %d alike", n-1)
		}
		p.para("    "+name+": "+s.Detail, "    ")
	}
}

type printer struct {
	w     io.Writer
	width int
	err   error
}

func (p *printer) printf(format string, a ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, a...)
	}
}

// para writes text wrapped to the width (80, -o wide 160), continuation lines indented.
func (p *printer) para(text, indent string) {
	lead := text[:len(text)-len(strings.TrimLeft(text, " "))]
	lines := textwrap.Words(text, p.width-len(lead))
	p.printf("%s%s\n", lead, lines[0])
	for _, l := range textwrap.Words(strings.Join(lines[1:], " "), p.width-len(indent)) {
		if l != "" {
			p.printf("%s%s\n", indent, l)
		}
	}
}
