package kueue

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/utils/ptr"
)

// ClusterQueue is the part of a Kueue ClusterQueue (kueue.x-k8s.io v1beta1 or v1beta2) that
// bounds what it can ever admit: its cohort and its resource groups' quotas.
type ClusterQueue struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		// CohortName is v1beta2's field, Cohort v1beta1's.
		CohortName     string          `json:"cohortName"`
		Cohort         string          `json:"cohort"`
		ResourceGroups []ResourceGroup `json:"resourceGroups"`
	} `json:"spec"`
}

// ResourceGroup is a ClusterQueue's group of resources that one flavor must give together.
type ResourceGroup struct {
	Flavors []FlavorQuotas `json:"flavors"`
}

// FlavorQuotas are one flavor's quotas in a resource group.
type FlavorQuotas struct {
	Name      string          `json:"name"`
	Resources []ResourceQuota `json:"resources"`
}

// ResourceQuota is the quota of one resource in one flavor.
type ResourceQuota struct {
	Name           corev1.ResourceName `json:"name"`
	NominalQuota   resource.Quantity   `json:"nominalQuota"`
	BorrowingLimit *resource.Quantity  `json:"borrowingLimit,omitempty"`
}

// Queues are the LocalQueues and ClusterQueues a user gave (lint --queues).
type Queues struct {
	// Local maps "namespace/name" of each LocalQueue to its spec.clusterQueue.
	Local   map[string]string
	Cluster map[string]*ClusterQueue
}

// AddObject adds a LocalQueue or ClusterQueue given as an object map (a document of a file) to
// qs; it says false for any other kind.
func (qs *Queues) AddObject(obj map[string]any) (bool, error) {
	kind, _ := obj["kind"].(string)
	apiVersion, _ := obj["apiVersion"].(string)
	if !strings.HasPrefix(apiVersion, Group+"/") || (kind != "LocalQueue" && kind != "ClusterQueue") {
		return false, nil
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return false, err
	}
	if kind == "ClusterQueue" {
		cq := &ClusterQueue{}
		if err := json.Unmarshal(b, cq); err != nil {
			return false, fmt.Errorf("ClusterQueue: %w", err)
		}
		if qs.Cluster == nil {
			qs.Cluster = map[string]*ClusterQueue{}
		}
		qs.Cluster[cq.Metadata.Name] = cq
		return true, nil
	}
	var lq struct {
		Metadata struct{ Name, Namespace string } `json:"metadata"`
		Spec     struct {
			ClusterQueue string `json:"clusterQueue"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(b, &lq); err != nil {
		return false, fmt.Errorf("LocalQueue: %w", err)
	}
	if qs.Local == nil {
		qs.Local = map[string]string{}
	}
	qs.Local[lq.Metadata.Namespace+"/"+lq.Metadata.Name] = lq.Spec.ClusterQueue
	return true, nil
}

// ClusterQueueFor is the ClusterQueue of the Job's LocalQueue: the one in the Job's namespace,
// or, for a Job that names no namespace, the only LocalQueue of that name; nil when not given.
func (qs *Queues) ClusterQueueFor(job *batchv1.Job) *ClusterQueue {
	lq := job.Labels[QueueLabel]
	if qs == nil || lq == "" {
		return nil
	}
	if cq, ok := qs.Local[job.Namespace+"/"+lq]; ok && job.Namespace != "" {
		return qs.Cluster[cq]
	}
	var found string
	for k, cq := range qs.Local {
		if strings.HasSuffix(k, "/"+lq) && (job.Namespace == "" || strings.HasPrefix(k, job.Namespace+"/")) {
			if found != "" && found != cq {
				return nil // ambiguous
			}
			found = cq
		}
	}
	return qs.Cluster[found]
}

// NeverAdmits says why cq can never admit the Job, or "" when it may. Kueue admits a Job's
// Workload whole (one PodSet of parallelism pods, at most completions; with
// kueue.x-k8s.io/job-min-parallelism as few as that many), each pod's requests summed with
// limits standing in for missing requests (Kueue v0.17.0: pkg/controller/jobs/job/
// job_controller.go podsCount, minPodsCount; pkg/workload/resources.go,
// UseLimitsAsMissingRequestsInPod), and each resource group from one flavor. A flavor fits
// only when every covered resource the pods request fits its maximum capacity: the nominal
// quota, plus the borrowing limit in a cohort (pkg/scheduler/flavorassigner, fitsResourceQuota:
// "... > maximum capacity"). A ClusterQueue in a cohort that sets no borrowing limit may borrow
// what the cohort has, which a ClusterQueue alone does not say: it may admit.
func NeverAdmits(cq *ClusterQueue, job *batchv1.Job) string {
	count := int64(ptr.Deref(job.Spec.Parallelism, 1))
	if c := job.Spec.Completions; c != nil {
		count = min(count, int64(*c))
	}
	if n, err := strconv.Atoi(job.Annotations[MinParallelismAnnotation]); err == nil && n > 0 {
		count = min(count, int64(n))
	}
	if count <= 0 {
		return ""
	}
	spec := job.Spec.Template.Spec.DeepCopy()
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			useLimits(&cs[i].Resources)
		}
	}
	perPod := resourcehelper.PodRequests(&corev1.Pod{Spec: *spec}, resourcehelper.PodResourcesOptions{})
	cohort := cq.Spec.CohortName != "" || cq.Spec.Cohort != ""
	for _, g := range cq.Spec.ResourceGroups {
		var why []string
		for _, f := range g.Flavors {
			reason := ""
			for _, r := range f.Resources {
				req, ok := perPod[r.Name]
				if !ok || req.IsZero() {
					continue
				}
				maxCap := r.NominalQuota.DeepCopy()
				if cohort {
					if r.BorrowingLimit == nil {
						continue // it may borrow what the cohort has
					}
					maxCap.Add(*r.BorrowingLimit)
				}
				total := req.DeepCopy()
				total.Mul(count)
				if total.Cmp(maxCap) > 0 {
					reason = fmt.Sprintf("flavor %s: %s of %s > maximum capacity %s", f.Name, total.String(), r.Name, maxCap.String())
					break
				}
			}
			if reason == "" {
				break
			}
			why = append(why, reason)
		}
		if len(why) == len(g.Flavors) && len(why) > 0 {
			return fmt.Sprintf("ClusterQueue %s can never admit its %d pods (%s)", cq.Metadata.Name, count, strings.Join(why, "; "))
		}
	}
	return ""
}

// useLimits sets each missing request to its limit, as Kueue counts them.
func useLimits(r *corev1.ResourceRequirements) {
	for name, l := range r.Limits {
		if _, ok := r.Requests[name]; !ok {
			if r.Requests == nil {
				r.Requests = corev1.ResourceList{}
			}
			r.Requests[name] = l.DeepCopy()
		}
	}
}
