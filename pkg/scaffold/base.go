package scaffold

import (
	"fmt"
	"io"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobspec"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// BaseFile is what a --from-job file holds: the object to start from as a Job and, when the
// file is the List create prints (its shard ConfigMaps and the Job), those ConfigMaps and a
// note that says the Job was taken from it.
type BaseFile struct {
	Job        *batchv1.Job
	ConfigMaps []*corev1.ConfigMap
	Note       string
}

// ReadBaseFile reads the object a user starts from (--from-job): a Job (for example as `kubectl
// get job -o yaml` prints it), a CronJob (its jobTemplate), a PodTemplate, or a Pod (its
// metadata and spec become the pod template), exactly one of them, unknown fields being errors
// as with the API server's strict field validation; or what `create --dry-run=client -o yaml`
// (or --save) prints: ConfigMaps and exactly one Job, in a List or a stream. The Job is the
// object to start from; the ConfigMaps are returned (they hold create's copy of the manifest).
func ReadBaseFile(path string, stdin io.Reader) (*BaseFile, error) {
	docs, err := source.Read([]string{path}, source.Options{Stdin: stdin})
	if err != nil {
		return nil, err
	}
	if len(docs) <= 1 {
		job, note, err := baseFromDocs(path, docs)
		if err != nil {
			return nil, err
		}
		return &BaseFile{Job: job, Note: note}, nil
	}
	b := &BaseFile{}
	var jobDocs []source.Document
	for i := range docs {
		d := &docs[i]
		if d.Err != nil {
			return nil, fmt.Errorf("%s: %w", d.Location(), d.Err)
		}
		if d.APIVersion() == "v1" && d.Kind() == "ConfigMap" {
			cm := &corev1.ConfigMap{}
			if _, err := d.DecodeStrict(cm); err != nil {
				return nil, fmt.Errorf("%s: %w", d.Location(), err)
			}
			b.ConfigMaps = append(b.ConfigMaps, cm)
			continue
		}
		jobDocs = append(jobDocs, *d)
	}
	if len(jobDocs) != 1 || jobDocs[0].APIVersion() != "batch/v1" || jobDocs[0].Kind() != "Job" {
		return nil, fmt.Errorf("%s holds %d objects: give exactly one Job, CronJob, PodTemplate or Pod, or what create --dry-run=client -o yaml prints (ConfigMaps and one Job)", path, len(docs))
	}
	if b.Job, _, err = baseFromDocs(path, jobDocs); err != nil {
		return nil, err
	}
	b.Note = fmt.Sprintf("--from-job %s holds %d objects, as create prints them: started from its Job %q; the shard ConfigMaps are made from the manifest",
		path, len(docs), b.Job.Name)
	return b, nil
}

// baseFromDocs is the Job that the one object of docs (none or one: ReadBaseFile takes a List
// apart first) starts, and a note on what was left out of it (a Pod's nodeName), for the user.
func baseFromDocs(path string, docs []source.Document) (*batchv1.Job, string, error) {
	if len(docs) == 0 {
		return nil, "", fmt.Errorf("%s: no object found: give a Job, CronJob, PodTemplate or Pod", path)
	}
	d := &docs[0]
	if d.Err != nil {
		return nil, "", fmt.Errorf("%s: %w", d.Location(), d.Err)
	}
	decode := func(out any) error {
		strict, err := d.DecodeStrict(out)
		if err != nil {
			return fmt.Errorf("%s: %w", d.Location(), err)
		}
		if len(strict) > 0 {
			return fmt.Errorf("%s: %s %q: %s", d.Location(), d.Kind(), d.Name(), strings.Join(strict, "; "))
		}
		return nil
	}
	switch gvk := d.APIVersion() + " " + d.Kind(); gvk {
	case "batch/v1 Job":
		job := &batchv1.Job{}
		if err := decode(job); err != nil {
			return nil, "", err
		}
		return job, "", nil
	case "batch/v1 CronJob":
		cj := &batchv1.CronJob{}
		if err := decode(cj); err != nil {
			return nil, "", err
		}
		return jobspec.JobOf(cj), "", nil
	case "v1 PodTemplate":
		pt := &corev1.PodTemplate{}
		if err := decode(pt); err != nil {
			return nil, "", err
		}
		return &batchv1.Job{Spec: batchv1.JobSpec{Template: pt.Template}}, "", nil
	case "v1 Pod":
		pod := &corev1.Pod{}
		if err := decode(pod); err != nil {
			return nil, "", err
		}
		tmpl := corev1.PodTemplateSpec{Spec: pod.Spec}
		// The scheduler's choice for that pod, not a choice for every shard: left out, said.
		var note string
		if pod.Spec.NodeName != "" {
			note = fmt.Sprintf("--from-job %s: pod %q ran on node %q; its nodeName is left out (the scheduler's choice for that pod, not for every shard: use a nodeSelector to pin them)", path, pod.Name, pod.Spec.NodeName)
		}
		tmpl.Spec.NodeName = ""
		tmpl.Labels, tmpl.Annotations = pod.Labels, pod.Annotations
		return &batchv1.Job{Spec: batchv1.JobSpec{Template: tmpl}}, note, nil
	default:
		return nil, "", fmt.Errorf("%s: %s is apiVersion %q kind %q: give a Job (batch/v1), CronJob (batch/v1), PodTemplate (v1) or Pod (v1)",
			d.Location(), d.Name(), d.APIVersion(), d.Kind())
	}
}
