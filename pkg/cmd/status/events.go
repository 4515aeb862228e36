package status

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/printcmd"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// maxFailedCreateNotes bounds how many distinct FailedCreate messages are quoted.
const maxFailedCreateNotes = 3

// failedCreateNotes says why a running Job has fewer pods than it should: the Job controller
// records every pod it could not create as a FailedCreate event on the Job (job_controller.go:
// manageJob -> podControl.CreatePodsWithGenerateName; controller_utils.go: CreatePods records
// FailedCreate with the API server's message). A missing service account, a quota or an admission
// webhook are reported there only: the Job's status just shows fewer active pods. Nothing is
// said when the Job has the pods it should, is suspended or finished, or when events cannot be
// listed (a user without "list events" gets the report without this note).
func (o *Options) failedCreateNotes(job *batchv1.Job, events []corev1.Event, err error) []string {
	want := gather.PodsWanted(job)
	if want == 0 || job.Status.Active >= want {
		return nil // suspended, finishing or finished, or it has its pods (events not read)
	}
	if _, ok := gather.IsMissing(err); ok {
		return nil // saved objects hold no events
	}
	if err != nil || len(events) == 0 {
		return noPodsNote(job, want, o.Clock.Now(), err != nil, o.conn)
	}
	return failedCreateText(job, want, events)
}

// noPodsFor is how long a running Job may have no pod at all before status says so without a
// FailedCreate event to quote: the controller creates pods in the sync that starts the Job
// (syncJob -> manageJob), within a second or two, so half a minute is far past one sync.
const noPodsFor = 30 * time.Second

// noPodsNote covers what FailedCreate events cannot: the user may not list events, or they
// expired (an hour by default). A Job that started more than noPodsFor ago and has no pod
// (none active, none terminating, none finished) is not "about to start" its pods.
func noPodsNote(job *batchv1.Job, want int32, now time.Time, eventsUnreadable bool, conn printcmd.Connection) []string {
	if job.Status.Active > 0 || job.Status.Succeeded > 0 || job.Status.Failed > 0 || ptr.Deref(job.Status.Terminating, 0) > 0 {
		return nil
	}
	since := job.CreationTimestamp.Time
	if job.Status.StartTime != nil {
		since = job.Status.StartTime.Time
	}
	if since.IsZero() || now.Sub(since) < noPodsFor {
		return nil
	}
	why := "no FailedCreate event explains it (events expire, by default after an hour)"
	if eventsUnreadable {
		why = "the Job's events could not be read (ask for \"list\" on \"events\" to see why)"
	}
	return []string{fmt.Sprintf("The Job started %s ago and has none of the %d pods it should run; the controller creates them within seconds, so something refuses them and %s: look for a quota, an admission webhook or a missing service account (%s).",
		now.Sub(since).Round(time.Second), want, why, conn.Command("kubectl", "get", "events", "-n", job.Namespace, "--field-selector", "involvedObject.name="+job.Name))}
}

// failedCreateText is the note for events (FailedCreate events of job): the latest first, one
// per distinct message.
func failedCreateText(job *batchv1.Job, want int32, events []corev1.Event) []string {
	last := func(e *corev1.Event) metav1.Time {
		switch {
		case !e.LastTimestamp.IsZero():
			return e.LastTimestamp
		case e.Series != nil:
			return metav1.Time{Time: e.Series.LastObservedTime.Time}
		case !e.EventTime.IsZero():
			return metav1.Time{Time: e.EventTime.Time}
		}
		return e.CreationTimestamp
	}
	sort.SliceStable(events, func(i, j int) bool { return last(&events[j]).Time.Before(last(&events[i]).Time) })
	seen := map[string]bool{}
	var out []string
	for i := range events {
		e := &events[i]
		msg := strings.TrimSpace(e.Message)
		if seen[msg] {
			continue
		}
		seen[msg] = true
		count := max(e.Count, 1)
		if e.Series != nil {
			count = max(count, e.Series.Count)
		}
		out = append(out, fmt.Sprintf("The Job has %d active of the %d pods it should run and "+failedCreateMark+" (%d×, last at %s): %s",
			job.Status.Active, want, count, last(e).UTC().Format("2006-01-02T15:04:05Z"), msg))
		if len(out) == maxFailedCreateNotes {
			break
		}
	}
	return out
}

// failedCreateMark is the words of the FailedCreate note that failedCreateNext looks for.
const failedCreateMark = "the Job controller cannot create them: FailedCreate"

// failedCreateNext rewords the Next entry of indexes not started yet when a FailedCreate note
// quotes the API server refusing their pods: "the controller starts them" is not what happens
// until the cause is fixed (the controller retries the creates, with a backoff, and is refused
// each time).
func failedCreateNext(r *indexstatus.IndexedJobStatus) *indexstatus.IndexedJobStatus {
	if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, failedCreateMark) }) {
		return r
	}
	c := *r
	c.Next = append([]string(nil), r.Next...)
	c.NextEntries = append([]indexstatus.Entry(nil), r.NextEntries...)
	for i, e := range c.NextEntries {
		if e.Kind != indexstatus.EntryNotStartedYet || e.Count == nil {
			continue
		}
		text := fmt.Sprintf("%s not started yet: the Job controller keeps trying to create their pods and the API server refuses them (FailedCreate, quoted in the notes); they start only once its cause is fixed.",
			textwrap.Count(int(*e.Count), "index is", "indexes are"))
		for j := range c.Next {
			if c.Next[j] == e.Text {
				c.Next[j] = text
			}
		}
		c.NextEntries[i].Text = text
	}
	return &c
}

// carryConnection returns r with the connection flags given added to its commands (the resume
// command of a suspended Job), in the entries and in the sentences that quote them.
func (o *Options) carryConnection(r *indexstatus.IndexedJobStatus) *indexstatus.IndexedJobStatus {
	if len(o.conn.Words()) == 0 {
		return r
	}
	c := *r
	c.Next = append([]string(nil), r.Next...)
	c.NextEntries = make([]indexstatus.Entry, len(r.NextEntries))
	for i, e := range r.NextEntries {
		if e.Command != "" {
			ext := o.conn.Extend(e.Command)
			for j := range c.Next {
				c.Next[j] = strings.ReplaceAll(c.Next[j], e.Command, ext)
			}
			// The entry's sentence quotes the command too: the text view prints the command
			// from it, on a line of its own, only when both agree.
			e.Text = strings.ReplaceAll(e.Text, e.Command, ext)
			e.Command = ext
		}
		c.NextEntries[i] = e
	}
	return &c
}

// maxSharingJobs bounds how many other Jobs the shared-ConfigMap note names.
const maxSharingJobs = 10

// sharedConfigMapNote names the other Jobs in the namespace that mount the same shard
// ConfigMap cm (others, gather's Facts.Shared), so that nobody deletes it thinking it is this
// Job's alone. Nothing is said when there are none or they cannot be listed.
func sharedConfigMapNote(cm string, others []string) []string {
	if len(others) == 0 {
		return nil
	}
	n := len(others)
	more := ""
	if len(others) > maxSharingJobs {
		more = fmt.Sprintf(" and %d more", len(others)-maxSharingJobs)
		others = others[:maxSharingJobs]
	}
	return []string{fmt.Sprintf("Shard ConfigMap %q is shared with %d other Job(s) of the same manifest (%s%s): delete it only when none of them needs it.",
		cm, n, strings.Join(others, ", "), more)}
}
