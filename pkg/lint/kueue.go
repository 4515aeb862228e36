package lint

import (
	"errors"
	"fmt"
	"io"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// Rules for Jobs that Kueue admits (label kueue.x-k8s.io/queue-name; issue 33).
const (
	RuleKueueQueued     = "kueue-queued"
	RuleKueueNoRequests = "kueue-no-requests"
	RuleKueueNeverAdmit = "kueue-never-admitted"
)

var kueueRules = []Rule{
	{RuleKueueQueued, SeverityInfo, "A Job that names a Kueue LocalQueue (label kueue.x-k8s.io/queue-name).",
		"Kueue owns spec.suspend: it keeps the Job suspended until its Workload is admitted into the ClusterQueue, then sets suspend to false; it suspends the Job again when it evicts the Workload (Kueue v0.17.0, pkg/controller/jobframework/reconciler.go). Where Kueue's mutating webhook runs it sets suspend to true at creation (pkg/controller/jobs/job/job_webhook.go, ApplyDefaultForSuspend); where it does not, a Job created unsuspended starts before admission.",
		"Create the Job with suspend: true (create --queue does) and leave suspend to Kueue; see why it waits with kubectl indexed status."},
	{RuleKueueNoRequests, SeverityWarning, "A container of a queued Job that requests no resources (no requests and no limits).",
		"Kueue admits a Workload by the resource requests of its pods, limits standing in for missing requests (Kueue v0.17.0, pkg/workload/resources.go, UseLimitsAsMissingRequestsInPod), against the ClusterQueue's quotas: a container without either counts for nothing, so the queue's quota does not bound what it uses.",
		"Set resources.requests (create --requests cpu=1,memory=2Gi) on every container of a queued Job."},
	{RuleKueueNeverAdmit, SeverityWarning, "A queued Job whose pods need more than every flavor of its ClusterQueue can ever give (lint --queues names the LocalQueues and ClusterQueues).",
		"Kueue admits a Job's Workload whole: parallelism pods (at most completions; with kueue.x-k8s.io/job-min-parallelism as few as that), each resource group from one flavor, and no flavor fits a request above its maximum capacity, the nominal quota plus the borrowing limit in a cohort (Kueue v0.17.0, pkg/scheduler/flavorassigner/flavorassigner.go, fitsResourceQuota: \"insufficient quota ... > maximum capacity\"). Such a Workload stays pending for ever: the API server accepts the Job and nothing runs.",
		"Lower parallelism (or the pods' requests) to what a flavor's quota holds, allow partial admission with kueue.x-k8s.io/job-min-parallelism, or raise the ClusterQueue's quota."},
}

// kueueJobRules: the Kueue rules of job (raw, as written), its spec under prefix.
func (c *checker) kueueJobRules(job *batchv1.Job, prefix *field.Path) {
	q := job.Labels[kueue.QueueLabel]
	if q == "" {
		return
	}
	msg := fmt.Sprintf("the Job names Kueue LocalQueue %q and is created suspended: Kueue sets suspend to false once its Workload is admitted; leave suspend to Kueue", q)
	if job.Spec.Suspend == nil || !*job.Spec.Suspend {
		msg = fmt.Sprintf("the Job names Kueue LocalQueue %q but is not created suspended: Kueue's webhook suspends it at creation where it runs; where it does not, the Job starts before its Workload is admitted", q)
	}
	c.add(RuleKueueQueued, SeverityInfo, prefix.Child("suspend").String(), msg)
	if cq := c.opts.Queues.ClusterQueueFor(job); cq != nil {
		if why := kueue.NeverAdmits(cq, job); why != "" {
			c.add(RuleKueueNeverAdmit, SeverityWarning, prefix.Child("parallelism").String(), why+": its Workload stays pending and nothing runs")
		}
	}
	spec := &job.Spec.Template.Spec
	for i, ctr := range spec.Containers {
		if len(ctr.Resources.Requests) == 0 && len(ctr.Resources.Limits) == 0 {
			c.add(RuleKueueNoRequests, SeverityWarning, prefix.Child("template", "spec", "containers").Index(i).Child("resources").String(),
				fmt.Sprintf("container %q requests no resources: Kueue counts the pods' requests against the ClusterQueue's quota, so this container counts for nothing there", ctr.Name))
		}
	}
}

// ReadQueues reads the LocalQueues and ClusterQueues of lint --queues: a file (or - for stdin)
// with at least one ClusterQueue. Other kinds are an error, as a wrong file would silently check
// nothing.
func ReadQueues(path string, stdin io.Reader) (*kueue.Queues, error) {
	docs, err := source.Read([]string{path}, source.Options{Stdin: stdin})
	if err != nil {
		return nil, fmt.Errorf("cannot read %w", err)
	}
	qs := &kueue.Queues{}
	for i := range docs {
		d := &docs[i]
		if d.Err != nil {
			return nil, fmt.Errorf("%s: %w", d.Location(), d.Err)
		}
		ok, err := qs.AddObject(d.Object)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Location(), err)
		}
		if !ok && d.Kind() != "" {
			return nil, fmt.Errorf("%s: %s %s is not a Kueue LocalQueue or ClusterQueue (kubectl get clusterqueues,localqueues -A -o yaml)", d.Location(), d.APIVersion(), d.Kind())
		}
	}
	if len(qs.Cluster) == 0 {
		return nil, errors.New(path + " holds no ClusterQueue (kubectl get clusterqueues,localqueues -A -o yaml)")
	}
	return qs, nil
}
