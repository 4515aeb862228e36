// Package kueue reads a Kueue Workload (kueue.x-k8s.io/v1beta2, Kueue v0.17.0) next to the
// Indexed Job it belongs to, and says in the report's words where the Job stands in its queue:
// LocalQueue and ClusterQueue, admission state with Kueue's own condition reasons and messages,
// admission checks, what was admitted (flavors, pod counts, partial admission), evictions and
// preemptions, requeueing, and for MultiKueue the worker cluster.
//
// It is a domain package: it takes the Job and the Workload as objects (a map, as a dynamic
// client or a saved file gives it) and returns values. ReadQueue decides which objects a Job's
// Queue needs; reading them is pkg/cmd's work (a Reader). The
// Workload's fields are decoded into this package's own types, named as in Kueue's
// apis/kueue/v1beta2/workload_types.go, so the plugin does not depend on Kueue's module.
package kueue

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Labels and annotations Kueue reads or writes (Kueue's pkg/controller/constants/constants.go).
const (
	QueueLabel         = "kueue.x-k8s.io/queue-name"
	PriorityClassLabel = "kueue.x-k8s.io/priority-class"
	JobUIDLabel        = "kueue.x-k8s.io/job-uid"
	// MinParallelismAnnotation enables partial admission of a batch/v1 Job
	// (pkg/controller/jobs/job/job_controller.go: JobMinParallelismAnnotation).
	MinParallelismAnnotation = "kueue.x-k8s.io/job-min-parallelism"
	// MultiKueueControllerName is spec.managedBy of a Job that MultiKueue dispatches.
	MultiKueueControllerName = "kueue.x-k8s.io/multikueue"
)

// Group, Version and Resource of Workloads.
const (
	Group    = "kueue.x-k8s.io"
	Version  = "v1beta2"
	Resource = "workloads"
)

// Workload condition types (workload_types.go).
const (
	CondQuotaReserved = "QuotaReserved"
	CondAdmitted      = "Admitted"
	CondFinished      = "Finished"
	CondEvicted       = "Evicted"
	CondPreempted     = "Preempted"
	CondRequeued      = "Requeued"
	CondPodsReady     = "PodsReady"
)

// Workload is the part of a Kueue Workload the report reads.
type Workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              WorkloadSpec   `json:"spec"`
	Status            WorkloadStatus `json:"status"`
}

// WorkloadSpec is Workload.spec.
type WorkloadSpec struct {
	PodSets          []PodSet          `json:"podSets"`
	QueueName        string            `json:"queueName,omitempty"`
	PriorityClassRef *PriorityClassRef `json:"priorityClassRef,omitempty"`
	Priority         *int32            `json:"priority,omitempty"`
	Active           *bool             `json:"active,omitempty"`
}

// PodSet is one of spec.podSets.
type PodSet struct {
	Name     string `json:"name"`
	Count    int32  `json:"count"`
	MinCount *int32 `json:"minCount,omitempty"`
}

// PriorityClassRef is spec.priorityClassRef.
type PriorityClassRef struct {
	Kind string `json:"kind,omitempty"`
	Name string `json:"name,omitempty"`
}

// WorkloadStatus is Workload.status.
type WorkloadStatus struct {
	Conditions      []metav1.Condition    `json:"conditions,omitempty"`
	Admission       *Admission            `json:"admission,omitempty"`
	RequeueState    *RequeueState         `json:"requeueState,omitempty"`
	AdmissionChecks []AdmissionCheckState `json:"admissionChecks,omitempty"`
	SchedulingStats *SchedulingStats      `json:"schedulingStats,omitempty"`
	ClusterName     *string               `json:"clusterName,omitempty"`
}

// Admission is status.admission.
type Admission struct {
	ClusterQueue      string             `json:"clusterQueue"`
	PodSetAssignments []PodSetAssignment `json:"podSetAssignments"`
}

// PodSetAssignment is one of status.admission.podSetAssignments.
type PodSetAssignment struct {
	Name    string            `json:"name"`
	Flavors map[string]string `json:"flavors,omitempty"`
	Count   *int32            `json:"count,omitempty"`
}

// RequeueState is status.requeueState.
type RequeueState struct {
	Count     *int32       `json:"count,omitempty"`
	RequeueAt *metav1.Time `json:"requeueAt,omitempty"`
}

// AdmissionCheckState is one of status.admissionChecks.
type AdmissionCheckState struct {
	Name    string `json:"name,omitempty"`
	State   string `json:"state,omitempty"`
	Message string `json:"message"`
}

// SchedulingStats is status.schedulingStats.
type SchedulingStats struct {
	Evictions []EvictionCount `json:"evictions,omitempty"`
}

// EvictionCount is one of status.schedulingStats.evictions.
type EvictionCount struct {
	Reason          string `json:"reason"`
	UnderlyingCause string `json:"underlyingCause"`
	Count           int32  `json:"count"`
}

// FromObject decodes a Workload from its object map (unstructured.Unstructured.Object, or a
// document of a saved file).
func FromObject(obj map[string]any) (*Workload, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	w := &Workload{}
	if err := json.Unmarshal(data, w); err != nil {
		return nil, fmt.Errorf("cannot read Workload: %w", err)
	}
	return w, nil
}

// Managed says whether Kueue manages job: it names a LocalQueue, or MultiKueue dispatches it.
func Managed(job *batchv1.Job) bool {
	return job.Labels[QueueLabel] != "" || ptr.Deref(job.Spec.ManagedBy, "") == MultiKueueControllerName
}

// OwnedBy returns the Workload of job among ws: the one labelled with the Job's UID, else
// the one the Job owns (controller reference); nil when none is.
func OwnedBy(job *batchv1.Job, ws []*Workload) *Workload {
	var owned *Workload
	for _, w := range ws {
		if job.UID != "" && w.Labels[JobUIDLabel] == string(job.UID) {
			return w
		}
		for _, ref := range w.OwnerReferences {
			if ref.Kind == "Job" && (ref.UID == job.UID || (job.UID == "" && ref.Name == job.Name)) && owned == nil {
				owned = w
			}
		}
	}
	return owned
}

// ClusterQueueOf is the ClusterQueue of LocalQueue lq as the admission of another Workload of
// that LocalQueue names it (a LocalQueue's spec.clusterQueue cannot change), or "".
func ClusterQueueOf(lq string, ws []*Workload) string {
	for _, w := range ws {
		if w.Spec.QueueName == lq && w.Status.Admission != nil && w.Status.Admission.ClusterQueue != "" {
			return w.Status.Admission.ClusterQueue
		}
	}
	return ""
}

// Queue is the report's view of a Kueue-managed Job's Workload (IndexedJobStatus.queue).
type Queue struct {
	// LocalQueue is the Job's kueue.x-k8s.io/queue-name (or the Workload's spec.queueName).
	LocalQueue string `json:"localQueue,omitempty"`
	// ClusterQueue is the admitting ClusterQueue (status.admission), or the LocalQueue's
	// spec.clusterQueue when the Workload is not admitted and the LocalQueue could be read.
	ClusterQueue string `json:"clusterQueue,omitempty"`
	// Workload names the Workload; empty with WorkloadUnread saying why.
	Workload       string `json:"workload,omitempty"`
	WorkloadUnread string `json:"workloadUnread,omitempty"`
	// PriorityClass is the WorkloadPriorityClass or PriorityClass (kind/name), Priority its value.
	PriorityClass string `json:"priorityClass,omitempty"`
	Priority      *int32 `json:"priority,omitempty"`
	// State is one of Pending, QuotaReserved, Admitted, Evicted, Finished, Deactivated, or
	// NoWorkload (Kueue has not made one yet).
	State string `json:"state"`
	// Conditions are the Workload's conditions Kueue writes (QuotaReserved, Admitted, Evicted,
	// Preempted, Requeued, Finished, PodsReady), with their reason and message verbatim.
	Conditions []Condition `json:"conditions,omitempty"`
	// AdmissionChecks are status.admissionChecks.
	AdmissionChecks []AdmissionCheckState `json:"admissionChecks,omitempty"`
	// PodSets are what each pod set asked for and was admitted with.
	PodSets []PodSetAdmission `json:"podSets,omitempty"`
	// RequestedParallelism is what the Job asks for (its pod set's count), AdmittedParallelism
	// what Kueue admitted, when it admitted fewer (partial admission).
	RequestedParallelism *int32 `json:"requestedParallelism,omitempty"`
	AdmittedParallelism  *int32 `json:"admittedParallelism,omitempty"`
	// Evictions are status.schedulingStats.evictions.
	Evictions []EvictionCount `json:"evictions,omitempty"`
	// PreemptedBy names the preempting Workload as Kueue's Preempted message does (its UID,
	// and its Job's UID), when the Workload was preempted.
	PreemptedBy *Preemptor `json:"preemptedBy,omitempty"`
	// RequeueCount and RequeueAt are status.requeueState.
	RequeueCount *int32     `json:"requeueCount,omitempty"`
	RequeueAt    *time.Time `json:"requeueAt,omitempty"`
	// Position in the queue: Kueue's visibility API; PositionUnknown says why it is not known.
	Position        *int32 `json:"position,omitempty"`
	PositionUnknown string `json:"positionUnknown,omitempty"`
	// WorkerCluster is the MultiKueue worker that runs the Job (status.clusterName).
	WorkerCluster string `json:"workerCluster,omitempty"`
	// WaitsFor are the Workloads of the Job's namespace that hold quota of its ClusterQueue
	// while it is pending (Kueue admits it when they release it, or preempts one of them).
	// Workloads of other namespaces sharing the ClusterQueue or its cohort are not read.
	WaitsFor []Holder `json:"waitsFor,omitempty"`
	// Next says who acts next, in words.
	Next string `json:"next"`
}

// Holder is a Workload that holds quota a pending Workload waits for.
type Holder struct {
	Workload string `json:"workload"`
	// Job is the name of the Job that owns the Workload, when a Job does.
	Job      string `json:"job,omitempty"`
	Pods     int32  `json:"pods"`
	Priority *int32 `json:"priority,omitempty"`
}

// Condition is one Workload condition.
type Condition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
	LastTransitionTime time.Time `json:"lastTransitionTime,omitzero"`
}

// PodSetAdmission is one pod set: its requested count, minimum, and what was admitted.
type PodSetAdmission struct {
	Name      string            `json:"name"`
	Requested int32             `json:"requested"`
	MinCount  *int32            `json:"minCount,omitempty"`
	Admitted  *int32            `json:"admitted,omitempty"`
	Flavors   map[string]string `json:"flavors,omitempty"`
}

// Preemptor is the Workload that preempted this one, as Kueue names it.
type Preemptor struct {
	WorkloadUID string `json:"workloadUID,omitempty"`
	JobUID      string `json:"jobUID,omitempty"`
	// Reason is the Preempted condition's reason (InClusterQueue, InCohortReclamation, ...).
	Reason string `json:"reason,omitempty"`
}

// preemptorRE reads preemptionMessage (pkg/scheduler/preemption/preemption.go):
// "Preempted to accommodate a workload (UID: %s, JobUID: %s) due to %s; ...".
var preemptorRE = regexp.MustCompile(`Preempted to accommodate a workload \(UID: ([^,]*), JobUID: ([^)]*)\)`)

// Input is what Interpret reads.
type Input struct {
	Job *batchv1.Job
	// Workload is the Job's Workload; nil when none was found or it could not be read
	// (WorkloadUnread says why, e.g. forbidden).
	Workload       *Workload
	WorkloadUnread string
	// ClusterQueue is the LocalQueue's spec.clusterQueue when known (a pending Workload does
	// not name it).
	ClusterQueue string
	// PositionUnknown says why the queue position is not known (the visibility API is not read
	// or not served).
	PositionUnknown string
	// Namespace holds the namespace's Workloads, read when the Job's Workload is pending, to
	// name those holding quota of its ClusterQueue; nil when not read.
	Namespace []*Workload
	Now       time.Time
}

func cond(w *Workload, t string) *metav1.Condition {
	return meta.FindStatusCondition(w.Status.Conditions, t)
}

func isTrue(c *metav1.Condition) bool { return c != nil && c.Status == metav1.ConditionTrue }

// Interpret makes the Queue of a Kueue-managed Job.
func Interpret(in Input) *Queue {
	job := in.Job
	q := &Queue{LocalQueue: job.Labels[QueueLabel], ClusterQueue: in.ClusterQueue, PositionUnknown: in.PositionUnknown}
	if pc := job.Labels[PriorityClassLabel]; pc != "" {
		q.PriorityClass = "WorkloadPriorityClass/" + pc
	}
	w := in.Workload
	if w == nil {
		q.WorkloadUnread = in.WorkloadUnread
		if q.WorkloadUnread == "" {
			q.State = "NoWorkload"
			q.Next = "Kueue has not created the Job's Workload yet: it does so within seconds while its controller manager runs; nothing is admitted before."
		} else {
			q.State = "Unknown"
			q.Next = "Kueue decides when the Job runs: it sets spec.suspend to false once the Job's Workload is admitted (the Workload could not be read)."
		}
		return q
	}
	q.Workload = w.Name
	q.LocalQueue = cmp.Or(q.LocalQueue, w.Spec.QueueName)
	if r := w.Spec.PriorityClassRef; r != nil && r.Name != "" {
		q.PriorityClass = cmp.Or(r.Kind, "PriorityClass") + "/" + r.Name
	}
	q.Priority = w.Spec.Priority
	for _, t := range []string{CondQuotaReserved, CondAdmitted, CondEvicted, CondPreempted, CondRequeued, CondPodsReady, CondFinished} {
		if c := cond(w, t); c != nil {
			q.Conditions = append(q.Conditions, Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message, LastTransitionTime: c.LastTransitionTime.UTC()})
		}
	}
	q.AdmissionChecks = w.Status.AdmissionChecks
	if a := w.Status.Admission; a != nil && a.ClusterQueue != "" {
		q.ClusterQueue = a.ClusterQueue
	}
	for _, ps := range w.Spec.PodSets {
		p := PodSetAdmission{Name: ps.Name, Requested: ps.Count, MinCount: ps.MinCount}
		if a := w.Status.Admission; a != nil {
			for _, psa := range a.PodSetAssignments {
				if psa.Name == ps.Name {
					p.Admitted, p.Flavors = psa.Count, psa.Flavors
				}
			}
		}
		q.PodSets = append(q.PodSets, p)
	}
	if len(q.PodSets) == 1 && q.PodSets[0].Admitted != nil && *q.PodSets[0].Admitted < q.PodSets[0].Requested {
		q.RequestedParallelism, q.AdmittedParallelism = ptr.To(q.PodSets[0].Requested), q.PodSets[0].Admitted
	}
	if s := w.Status.SchedulingStats; s != nil {
		q.Evictions = s.Evictions
	}
	if c := cond(w, CondPreempted); c != nil {
		if m := preemptorRE.FindStringSubmatch(c.Message); m != nil {
			q.PreemptedBy = &Preemptor{WorkloadUID: m[1], JobUID: m[2], Reason: c.Reason}
		}
	}
	if c := cond(w, CondEvicted); q.PreemptedBy == nil && c != nil && c.Reason == "Preempted" {
		if m := preemptorRE.FindStringSubmatch(c.Message); m != nil {
			q.PreemptedBy = &Preemptor{WorkloadUID: m[1], JobUID: m[2]}
		}
	}
	if rs := w.Status.RequeueState; rs != nil {
		q.RequeueCount = rs.Count
		if rs.RequeueAt != nil {
			q.RequeueAt = ptr.To(rs.RequeueAt.UTC())
		}
	}
	q.WorkerCluster = ptr.Deref(w.Status.ClusterName, "")
	if !isTrue(cond(w, CondQuotaReserved)) && q.ClusterQueue != "" {
		q.WaitsFor = holders(in.Namespace, q.ClusterQueue, w.UID)
	}
	q.State, q.Next = state(q, w, in.Now)
	return q
}

// holders are the Workloads of ws with quota reserved in ClusterQueue cq and not finished,
// other than the Workload self.
func holders(ws []*Workload, cq string, self types.UID) []Holder {
	var out []Holder
	for _, o := range ws {
		a := o.Status.Admission
		if o.UID == self || a == nil || a.ClusterQueue != cq || !isTrue(cond(o, CondQuotaReserved)) || isTrue(cond(o, CondFinished)) {
			continue
		}
		h := Holder{Workload: o.Name, Priority: o.Spec.Priority}
		for _, ref := range o.OwnerReferences {
			if ref.Kind == "Job" {
				h.Job = ref.Name
			}
		}
		for _, psa := range a.PodSetAssignments {
			if psa.Count != nil {
				h.Pods += *psa.Count
			}
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Workload < out[j].Workload })
	return out
}

// holderWords names the holders: "Job a (Workload job-a-1, 2 pods)", or "Workload w (2 pods)"
// for a Workload no Job owns.
func holderWords(hs []Holder) string {
	var parts []string
	for _, h := range hs {
		name, detail := "Workload "+h.Workload, textwrap.Count(int(h.Pods), "pod", "pods")
		if h.Job != "" {
			name, detail = "Job "+h.Job, name+", "+detail
		}
		if h.Priority != nil {
			detail += fmt.Sprintf(", priority %d", *h.Priority)
		}
		parts = append(parts, name+" ("+detail+")")
	}
	return strings.Join(parts, ", ")
}

func state(q *Queue, w *Workload, now time.Time) (string, string) {
	cq := "its ClusterQueue"
	if q.ClusterQueue != "" {
		cq = "ClusterQueue " + q.ClusterQueue
	}
	qr, adm, ev := cond(w, CondQuotaReserved), cond(w, CondAdmitted), cond(w, CondEvicted)
	switch {
	case isTrue(cond(w, CondFinished)):
		return "Finished", "Kueue marked the Workload finished and released its quota."
	case w.Spec.Active != nil && !*w.Spec.Active:
		return "Deactivated", fmt.Sprintf("The Workload is deactivated (spec.active is false): Kueue admits nothing until it is set to true (kubectl patch workloads.%s %s -n %s --type=merge -p '{\"spec\":{\"active\":true}}').", Group, w.Name, w.Namespace)
	case isTrue(ev) && (isTrue(qr) || isTrue(adm)):
		by := ""
		if p := q.PreemptedBy; p != nil {
			by = fmt.Sprintf(" by Workload UID %s (Job UID %s)", p.WorkloadUID, p.JobUID)
		}
		return "Evicted", fmt.Sprintf("Kueue evicted the Workload (%s%s): it suspends the Job, the Job controller deletes its pods without counting them as failed, then Kueue releases the quota and requeues the Workload in %s.", ev.Reason, by, cq)
	case isTrue(adm):
		if q.AdmittedParallelism != nil {
			return "Admitted", fmt.Sprintf("Admitted by %s with %d of the %d pods asked (partial admission, %s): the Job runs with parallelism %d.", cq, *q.AdmittedParallelism, *q.RequestedParallelism, MinParallelismAnnotation, *q.AdmittedParallelism)
		}
		return "Admitted", fmt.Sprintf("Admitted by %s: Kueue has set spec.suspend to false and the Job controller runs it.", cq)
	case isTrue(qr):
		var pending []string
		for _, ac := range w.Status.AdmissionChecks {
			if ac.State != "Ready" {
				pending = append(pending, fmt.Sprintf("%s (%s)", ac.Name, ac.State))
			}
		}
		if len(pending) > 0 {
			return "QuotaReserved", fmt.Sprintf("Quota is reserved in %s; Kueue admits the Workload once its admission checks are Ready: %s.", cq, strings.Join(pending, ", "))
		}
		return "QuotaReserved", fmt.Sprintf("Quota is reserved in %s; Kueue admits the Workload at its next reconcile.", cq)
	}
	// Not admitted.
	var b strings.Builder
	if q.RequeueAt != nil && q.RequeueAt.After(now) {
		fmt.Fprintf(&b, "Kueue requeues the Workload at %s (in %s", q.RequeueAt.Format(time.RFC3339), now.Sub(*q.RequeueAt).Abs().Round(time.Second))
		if q.RequeueCount != nil {
			fmt.Fprintf(&b, ", requeue %d", *q.RequeueCount)
		}
		b.WriteString("), then admits it when quota frees")
	} else {
		fmt.Fprintf(&b, "Kueue admits the Workload when %s has the quota for it", cq)
	}
	if len(q.WaitsFor) > 0 {
		fmt.Fprintf(&b, "; it waits for %s to release it, in this namespace", holderWords(q.WaitsFor))
	}
	if p := q.PreemptedBy; p != nil {
		fmt.Fprintf(&b, "; it was preempted by Workload UID %s (Job UID %s)", p.WorkloadUID, p.JobUID)
	}
	if qr != nil && qr.Message != "" {
		fmt.Fprintf(&b, ". Kueue says (%s): %s", qr.Reason, strings.TrimSuffix(qr.Message, "."))
	}
	b.WriteString(". Leave spec.suspend to Kueue.")
	return "Pending", b.String()
}

// Lines are the Queue block of the text report: a key and a value per line.
func (q *Queue) Lines() [][2]string {
	var out [][2]string
	add := func(k, v string) {
		if v != "" {
			out = append(out, [2]string{k, v})
		}
	}
	lq := q.LocalQueue
	if q.ClusterQueue != "" {
		lq += " → ClusterQueue " + q.ClusterQueue
	}
	add("Queue", "LocalQueue "+lq)
	add("Workload", cmp.Or(q.Workload, q.WorkloadUnread))
	prio := q.PriorityClass // add leaves out a line with neither
	if q.Priority != nil {
		prio = strings.TrimSpace(fmt.Sprintf("%s (value %d)", prio, *q.Priority))
	}
	add("Priority", prio)
	said := map[string]bool{}
	for _, c := range q.Conditions {
		if c.Status == "True" || c.Type == CondQuotaReserved {
			s := c.Type + "=" + c.Status
			if c.Reason != "" {
				s += " " + c.Reason
			}
			switch {
			case c.Message == "":
			case said[c.Message]:
				// Kueue repeats the preemption message on Evicted, Preempted and Requeued.
				s += " (the same message)"
			default:
				s += ": " + c.Message
				said[c.Message] = true
			}
			add("Condition", s)
		}
	}
	add("Admission", q.State)
	for _, ac := range q.AdmissionChecks {
		add("Check", strings.TrimSpace(fmt.Sprintf("%s %s %s", ac.Name, ac.State, ac.Message)))
	}
	for _, ps := range q.PodSets {
		if ps.Admitted == nil {
			continue
		}
		s := fmt.Sprintf("pod set %s: %d of %d pods", ps.Name, *ps.Admitted, ps.Requested)
		if len(ps.Flavors) > 0 {
			var fl []string
			for _, k := range slices.Sorted(maps.Keys(ps.Flavors)) {
				fl = append(fl, k+"="+ps.Flavors[k])
			}
			s += ", flavors " + strings.Join(fl, " ")
		}
		add("Admitted", s)
	}
	if q.AdmittedParallelism != nil {
		add("Partial", fmt.Sprintf("admitted parallelism %d of %d requested", *q.AdmittedParallelism, *q.RequestedParallelism))
	}
	var ev []string
	for _, e := range q.Evictions {
		s := fmt.Sprintf("%s ×%d", e.Reason, e.Count)
		if e.UnderlyingCause != "" {
			s += " (" + e.UnderlyingCause + ")"
		}
		ev = append(ev, s)
	}
	add("Evictions", strings.Join(ev, ", "))
	if p := q.PreemptedBy; p != nil {
		add("Preempted", fmt.Sprintf("by Workload UID %s (Job UID %s) %s", p.WorkloadUID, p.JobUID, p.Reason))
	}
	requeued := "" // add leaves out a line with neither
	if q.RequeueCount != nil {
		requeued = fmt.Sprintf("%d times", *q.RequeueCount)
	}
	if q.RequeueAt != nil {
		requeued = strings.TrimSpace(requeued + ", next at " + q.RequeueAt.Format(time.RFC3339))
	}
	add("Requeued", strings.TrimPrefix(requeued, ", "))
	add("Worker", q.WorkerCluster)
	if len(q.WaitsFor) > 0 {
		add("Waits for", holderWords(q.WaitsFor)+" (quota of "+q.ClusterQueue+" held in this namespace)")
	}
	if q.Position != nil {
		add("Position", fmt.Sprintf("%d", *q.Position))
	} else if q.PositionUnknown != "" && !slices.Contains([]string{"Admitted", "Finished"}, q.State) {
		add("Position", "unknown: "+q.PositionUnknown)
	}
	return out
}

// SuspendFor is the spec.suspend a Job made by the plugin (create --queue, retry) gets: true
// when it names a LocalQueue, as Kueue's mutating webhook would set it (and must be, where the
// webhook does not run, or the Job would start before its Workload is admitted), nil otherwise.
func SuspendFor(labels map[string]string) *bool {
	if labels[QueueLabel] == "" {
		return nil
	}
	return ptr.To(true)
}
