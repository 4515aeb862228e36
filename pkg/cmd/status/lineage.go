package status

import (
	"context"
	"fmt"
	"io"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/printcmd"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// jobLineage reads job's lineage, and the index map from the ConfigMap get returns when the
// Job keeps it in one. l is nil for a root Job; notes say what could not be read (l is then
// nil too: its root indexes are not shown rather than shown wrong).
func jobLineage(job *batchv1.Job, get func(name string) (*corev1.ConfigMap, error)) (*lineage.Lineage, []string) {
	l, ok, err := lineage.ReadResolved(job, get)
	switch {
	case !ok:
		return nil, nil
	case err != nil && l != nil && l.OriginalFrom != nil:
		return nil, []string{fmt.Sprintf("The root index of each index is not shown: %v.", err)}
	case err != nil:
		return nil, []string{fmt.Sprintf("Lineage annotations cannot be read: %v.", err)}
	}
	return l, nil
}

// liveIndexMap GETs an index map's ConfigMap, saying in the error what is missing.
func (o *Options) liveIndexMap(ctx context.Context) func(string) (*corev1.ConfigMap, error) {
	return func(name string) (*corev1.ConfigMap, error) {
		cm, err := o.Client.CoreV1().ConfigMaps(o.Namespace).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil, fmt.Errorf("it does not exist in namespace %q: the original index of each index is not shown", o.Namespace)
		case apierrors.IsForbidden(err):
			return nil, fmt.Errorf("not allowed to get it (ask for \"get\" on \"configmaps\")")
		}
		return cm, err
	}
}

// offlineIndexMap finds an index map's ConfigMap among those read from file.
func offlineIndexMap(cms map[string]*corev1.ConfigMap, file string, job *batchv1.Job) func(string) (*corev1.ConfigMap, error) {
	return func(name string) (*corev1.ConfigMap, error) {
		if cm := cms[name]; cm != nil {
			return cm, nil
		}
		return nil, fmt.Errorf("%s does not hold it: save it with the Job (kubectl get job %s configmap %s -o json)", file, job.Name, name)
	}
}

// lineageNote tells, on the report of a retry Job (lineage l, nil for a root), which root
// indexes its indexes run, and the command that shows the whole run (with the namespace and
// connection flags given).
func lineageNote(job *batchv1.Job, l *lineage.Lineage, conn printcmd.Connection) []string {
	if l == nil {
		return nil
	}
	var pairs []string
	for k := range l.Original.Len() {
		if k == 10 {
			pairs = append(pairs, "...")
			break
		}
		r, _ := l.RootIndex(k)
		pairs = append(pairs, fmt.Sprintf("%d→%d", k, r))
	}
	where := ""
	if l.OriginalFrom != nil {
		where = fmt.Sprintf(" (the map is kept in ConfigMap %q)", l.OriginalFrom.ConfigMap)
	}
	return []string{fmt.Sprintf("Retry %d of job %q (parent %q): its indexes run root indexes %s of %s (%s)%s; the shard IDs are the original ones. The whole run: %s",
		l.Attempt, l.RootJob, l.ParentJob, l.Original.Truncated(200), l.RootJob, strings.Join(pairs, ", "), where, wholeRunCommand(job, l.RootJob, conn))}
}

// setOriginalIndexes sets, on the report of a retry Job (lineage l), the root index each
// index runs.
func setOriginalIndexes(r *indexstatus.IndexedJobStatus, l *lineage.Lineage) {
	if l == nil || r == nil || !l.Resolved() {
		return
	}
	roots := l.RootIndexes(l.Original.Len())
	for i := range r.Indexes {
		if k := r.Indexes[i].Index; k >= 0 && k < len(roots) {
			root := roots[k]
			r.Indexes[i].OriginalIndex = &root
		}
	}
}

// runLineage prints the shard-level report of the root Job of o.JobName (or of -f's Jobs) and
// all its retries.
func (o *Options) runLineage(ctx context.Context) error {
	var r *lineage.Report
	var err error
	if o.offline() {
		r, err = o.offlineLineage()
	} else {
		r, err = o.liveLineage(ctx)
	}
	if err != nil {
		return err
	}
	if err := o.printLineage(o.Out, r); err != nil {
		return err
	}
	if !o.ExitCode {
		return nil
	}
	switch {
	case r.Complete:
		return nil
	case r.Summary.Running+r.Summary.Pending+r.Summary.Retrying+r.Summary.Terminating > 0:
		return exitcode.Silent(exitcode.Running)
	}
	return exitcode.Silent(exitcode.Findings)
}

func (o *Options) printLineage(w io.Writer, r *lineage.Report) error {
	// Templates see the LineageReport as -o json prints it; custom-columns a row per shard.
	return o.PrintFlags.PrintList(w, r, "shardStatuses", func(format string) error { return printLineageText(w, format, r) })
}

func printLineageText(w io.Writer, format string, r *lineage.Report) error {
	if format == output.FormatName {
		// As kubectl get -o name: every Job of the lineage, the root first.
		for _, j := range r.Jobs {
			if _, err := fmt.Fprintf(w, "job.batch/%s\n", j.Name); err != nil {
				return err
			}
		}
		return nil
	}
	return lineage.PrintText(w, r, format == output.FormatWide)
}

func (o *Options) lineageReportOptions(notes []string, sh shardState) indexstatus.Options {
	opts := o.reportOptions(notes, sh)
	opts.AllIndexes = true
	return opts
}

// liveLineage GETs the Job named, its root, LISTs the root's retries by label, and reads each
// Job's pods and shard ConfigMap as plain status does.
func (o *Options) liveLineage(ctx context.Context) (*lineage.Report, error) {
	jobs := o.Client.BatchV1().Jobs(o.Namespace)
	job, err := jobs.Get(ctx, o.JobName, metav1.GetOptions{})
	if err != nil {
		return nil, exitcode.APIError(err, "get", "jobs", o.JobName, o.Namespace)
	}
	rootName := job.Name
	var notes []string
	all := []*batchv1.Job{}
	if l, ok, err := lineage.Read(job); err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	} else if ok {
		rootName = l.RootJob
		root, err := jobs.Get(ctx, rootName, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return nil, exitcode.APIError(err, "get", "jobs", rootName, o.Namespace)
		default:
			all = append(all, root)
		}
	} else {
		all = append(all, job)
	}
	list, err := jobs.List(ctx, metav1.ListOptions{LabelSelector: labels.Set{shards.LabelRootJob: rootName}.String()})
	if err != nil {
		return nil, exitcode.APIError(err, "list", "jobs", "", o.Namespace)
	}
	for i := range list.Items {
		all = append(all, &list.Items[i])
	}
	members := make([]lineage.Member, 0, len(all))
	for _, j := range all {
		if err := indexstatus.CheckIndexed(j); err != nil {
			notes = append(notes, fmt.Sprintf("Job %q is left out: %v.", j.Name, err))
			continue
		}
		acc, _, err := o.readPods(ctx, j, true) // one read per Job, folded
		if err != nil {
			return nil, err
		}
		m := lineage.Member{Job: j}
		if l, ok, err := lineage.ReadResolved(j, o.liveIndexMap(ctx)); ok {
			if err != nil {
				notes = append(notes, fmt.Sprintf("Job %q is left out: %v.", j.Name, err))
				continue
			}
			m.Lineage = l
		}
		n, sh := o.loadShards(ctx, j)
		m.Report = acc.Report(o.lineageReportOptions(n, sh))
		members = append(members, m)
		notes = append(notes, n...)
	}
	manifest, n := lineageManifest(rootName, members, func(name string) (*corev1.ConfigMap, error) {
		return o.Client.CoreV1().ConfigMaps(o.Namespace).Get(ctx, name, metav1.GetOptions{})
	})
	r, err := lineage.BuildReportOf(o.Namespace, rootName, members, manifest, append(notes, n...))
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	return r, nil
}

// lineageManifest reads, when the root Job rootName is not among members (deleted by hand or
// by its TTL), the manifest copy in a retry's shard ConfigMap, so that the report counts every
// shard of the manifest, not only those the retries ran. nil with the root present.
func lineageManifest(rootName string, members []lineage.Member, get func(string) (*corev1.ConfigMap, error)) (*lineage.Manifest, []string) {
	var notes []string
	for _, m := range members {
		if m.Lineage == nil && m.Job.Name == rootName {
			return nil, nil
		}
	}
	for _, m := range members {
		name, ok := shards.ConfigMapNameFromJob(m.Job)
		if m.Lineage == nil || !ok {
			continue
		}
		cm, err := get(name)
		if err != nil {
			notes = append(notes, fmt.Sprintf("The manifest copy in ConfigMap %q of Job %q cannot be read: %v.", name, m.Job.Name, err))
			continue
		}
		man, ok, err := lineage.ManifestFromConfigMap(cm, m.Job.Annotations[shards.AnnotationManifestHash])
		switch {
		case err != nil:
			notes = append(notes, fmt.Sprintf("The manifest copy of Job %q is not used: %v.", m.Job.Name, err))
		case ok:
			return man, notes
		}
	}
	return nil, notes
}

// offlineLineage reads the Jobs (and any pods and ConfigMaps) of -f, the pods of --pods-file and
// the ConfigMaps of --shards-file: for example
//
//	kubectl get jobs,configmaps -l indexed.kubectl.io/root-job=eval -o json > lineage.json
//	kubectl get job eval -o json >> ... (the root carries no root-job label)
func (o *Options) offlineLineage() (*lineage.Report, error) {
	var jobs []*batchv1.Job
	var pods []corev1.Pod
	cms := map[string]*corev1.ConfigMap{}
	paths := []string{o.Filename}
	if o.ShardsFile != "" {
		paths = append(paths, o.ShardsFile)
	}
	for _, p := range paths {
		docs, err := source.Read([]string{p}, source.Options{Stdin: o.In})
		if err != nil {
			return nil, exitcode.Wrap(exitcode.Usage, err)
		}
		for i := range docs {
			d := &docs[i]
			if d.Err != nil {
				return nil, exitcode.Wrap(exitcode.Usage, fmt.Errorf("%s: %w", d.Location(), d.Err))
			}
			var err error
			switch d.Kind() {
			case "Job":
				j := &batchv1.Job{}
				_, err = d.DecodeStrict(j)
				jobs = append(jobs, j)
			case "Pod":
				var pod corev1.Pod
				_, err = d.DecodeStrict(&pod)
				pods = append(pods, pod)
			case "ConfigMap":
				cm := &corev1.ConfigMap{}
				_, err = d.DecodeStrict(cm)
				cms[cm.Name] = cm
			default:
				err = fmt.Errorf("%s %q: expected Jobs, Pods or ConfigMaps", d.Kind(), d.Name())
			}
			if err != nil {
				return nil, exitcode.Wrap(exitcode.Usage, fmt.Errorf("%s: %w", d.Location(), err))
			}
		}
	}
	if o.PodsFile != "" {
		p, err := source.ReadPods(o.PodsFile, o.In)
		if err != nil {
			return nil, podsReadError(err, "kubectl get pods -n NAMESPACE -o json")
		}
		pods = append(pods, p...)
	}
	if len(jobs) == 0 {
		return nil, exitcode.UsageError("%s holds no Job: give the root Job and its retries (a List, as kubectl get jobs -o json writes it)", o.Filename)
	}
	rootName, err := offlineRoot(jobs)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	var notes []string
	if len(pods) == 0 {
		notes = append(notes, "No pods given: the report rests on the Jobs' status alone (no exit codes, so no invalid-input verdict).")
	}
	members := make([]lineage.Member, 0, len(jobs))
	for _, j := range jobs {
		// Decided as live and as the offline status of one Job: a shard ConfigMap the pods do
		// not mount, or unreadable, is a note, not silently no IDs.
		ids, name, n, changed := scaffold.TrustedShards(j, func(name string) (*corev1.ConfigMap, string) {
			if cm := shardConfigMapWithJob(cms, j, name); cm != nil {
				return cm, ""
			}
			return nil, ""
		})
		o.warnShardsChanged(j, changed)
		for _, note := range n {
			if note != "" {
				notes = append(notes, fmt.Sprintf("Job %q: %s", j.Name, note))
			}
		}
		sh := shardState{ids: ids, configMap: name}
		m := lineage.Member{Job: j}
		if l, ok, err := lineage.ReadResolved(j, offlineIndexMap(cms, strings.Join(paths, " and "), j)); ok {
			if err != nil {
				notes = append(notes, fmt.Sprintf("Job %q is left out: %v.", j.Name, err))
				continue
			}
			m.Lineage = l
		}
		rep, err := indexstatus.Build(j, pods, o.lineageReportOptions(nil, sh))
		if err != nil {
			notes = append(notes, fmt.Sprintf("Job %q is left out: %v.", j.Name, err))
			continue
		}
		m.Report = rep
		members = append(members, m)
	}
	ns := jobs[0].Namespace
	manifest, n := lineageManifest(rootName, members, func(name string) (*corev1.ConfigMap, error) {
		if cm := cms[name]; cm != nil {
			return cm, nil
		}
		return nil, fmt.Errorf("%s does not hold it", strings.Join(paths, " and "))
	})
	r, err := lineage.BuildReportOf(ns, rootName, members, manifest, append(notes, n...))
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	return r, nil
}

// offlineRoot is the root named by the retries in jobs, else the only Job without lineage.
func offlineRoot(jobs []*batchv1.Job) (string, error) {
	roots := map[string]bool{}
	for _, j := range jobs {
		if l, ok, err := lineage.Read(j); ok && err == nil {
			roots[l.RootJob] = true
		}
	}
	if len(roots) == 0 {
		for _, j := range jobs {
			if !lineage.IsRetry(j) {
				roots[j.Name] = true
			}
		}
	}
	if len(roots) != 1 {
		names := make([]string, 0, len(roots))
		for n := range roots {
			names = append(names, n)
		}
		return "", fmt.Errorf("the Jobs given belong to %d lineages (%s): give the Jobs of one run only", len(roots), strings.Join(names, ", "))
	}
	for n := range roots {
		return n, nil
	}
	return "", nil
}

// wholeRunCommand is `kubectl indexed status ROOT --lineage`, in job's namespace when it has one
// (offline reports of saved objects do), with the connection flags given.
func wholeRunCommand(job *batchv1.Job, root string, conn printcmd.Connection) string {
	words := []string{"kubectl", "indexed", "status", root, "--lineage"}
	if job.Namespace != "" {
		words = append(words, "-n", job.Namespace)
	}
	return conn.Command(words...)
}
