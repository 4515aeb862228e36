package status

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/printcmd"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/htmlreport"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

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
		l.Attempt, l.RootJob, l.ParentJob, l.Original.Truncated(200), l.RootJob, strings.Join(pairs, ", "), where, wholeRunCommand(job, conn))}
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
	if o.Watch && !o.offline() {
		return o.closeRecord(o.watchLineage(ctx))
	}
	src := o.src
	run, jobs, notes := lineage.RunID{Root: o.lineageRoot}, []*batchv1.Job(nil), o.lineageNotes
	var err error
	if f, ok := src.(*gather.File); ok {
		jobs = f.JobList
	} else if run, jobs, notes, err = o.liveLineage(ctx, src); err != nil {
		return err
	}
	r, err := o.lineageReport(ctx, src, run, jobs, notes)
	if err != nil {
		return err
	}
	if err := o.printLineage(o.Out, r); err != nil {
		return err
	}
	return o.lineageExit(r)
}

// lineageExit is --exit-code of a lineage report: 0 complete, 3 while a Job of it runs or a
// shard is unsettled, 1 otherwise.
func (o *Options) lineageExit(r *lineage.Report) error {
	if !o.ExitCode {
		return nil
	}
	switch {
	case r.Complete:
		return nil
	case r.Unsettled+r.Summary.Running+r.Summary.Pending+r.Summary.Retrying+r.Summary.Terminating > 0:
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
	if format == FormatHTML {
		return htmlreport.WriteLineage(w, r)
	}
	return lineage.PrintText(w, r, format == output.FormatWide)
}

// liveLineage GETs the Job named and its root, and LISTs the root's retries by label. The run
// is the Job's (lineage.RunOf): a Job of the root's name with another UID is not its root and
// is left out, with a note.
func (o *Options) liveLineage(ctx context.Context, src gather.Source) (lineage.RunID, []*batchv1.Job, []string, error) {
	run, err := gather.ReadRun(ctx, src, o.JobName, src.InNamespace())
	if err != nil {
		return lineage.RunID{}, nil, nil, err
	}
	if _, _, err := lineage.Read(run.Job); err != nil {
		return run.ID, nil, nil, exitcode.Wrap(exitcode.Usage, err)
	}
	var all []*batchv1.Job
	var notes []string
	if run.Root != nil {
		all = append(all, run.Root)
	}
	if r := run.Replaced; r != nil {
		notes = append(notes, fmt.Sprintf("Job %q (uid %s) is not the root of this run: %q retries a Job of that name with uid %s, which was deleted; the Job of its name now is another run, left out.", r.Name, r.UID, run.Job.Name, run.ID.RootUID))
	}
	// The retries of another run are passed on: the report leaves them out with a note.
	all = append(append(all, run.Retries...), run.Others...)
	return run.ID, all, notes, nil
}

// lineageReport reads, live or offline, each Job's pods, index map and shard ConfigMap as
// plain status does, and makes the report of the lineage of run.
func (o *Options) lineageReport(ctx context.Context, src gather.Source, run lineage.RunID, all []*batchv1.Job, notes []string) (*lineage.Report, error) {
	members := make([]lineage.Member, 0, len(all))
	for _, j := range all {
		if err := indexstatus.CheckIndexed(j); err != nil {
			notes = append(notes, fmt.Sprintf("Job %q is left out: %v.", j.Name, err))
			continue
		}
		acc, _, err := src.JobPods(ctx, j, o.podRead()) // one read per Job
		if err != nil {
			return nil, err
		}
		m := lineage.Member{Job: j}
		if l, ok, err := lineage.ReadResolved(j, gather.IndexMap(ctx, src, j)); ok {
			if err != nil {
				notes = append(notes, fmt.Sprintf("Job %q is left out: %v.", j.Name, err))
				continue
			}
			m.Lineage = l
		}
		sh := src.Shards(ctx, j)
		o.warnShardsChanged(j, sh.Changed)
		n := sh.Notes
		opts := o.reportOptions(n, shardState{ids: sh.IDs, configMap: sh.ConfigMap})
		opts.AllIndexes = true
		m.Report = acc.Report(opts)
		members = append(members, m)
		notes = append(notes, n...)
	}
	manifest, n := lineageManifest(run, members, func(name string) (*corev1.ConfigMap, error) {
		cm, err := src.ConfigMap(ctx, name)
		if m, ok := gather.IsMissing(err); ok {
			return nil, fmt.Errorf("%s does not hold it", m.Files)
		}
		return cm, err
	})
	r, err := lineage.BuildReportOf(src.InNamespace(), run, members, manifest, append(notes, n...))
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	return r, nil
}

// lineageManifest reads, when the root Job of run is not among members (deleted by hand or
// by its TTL, or replaced by a Job of its name), the manifest copy in a retry's shard
// ConfigMap, so that the report counts every shard of the manifest, not only those the
// retries ran. nil with the root present.
func lineageManifest(run lineage.RunID, members []lineage.Member, get func(string) (*corev1.ConfigMap, error)) (*lineage.Manifest, []string) {
	var notes []string
	for _, m := range members {
		if m.Lineage == nil && m.Job.Name == run.Root && (run.RootUID == "" || lineage.InRun(m.Job, run)) {
			return nil, nil
		}
	}
	for _, m := range members {
		name, ok := shards.ConfigMapNameFromJob(m.Job)
		if m.Lineage == nil || !ok || (run.RootUID != "" && m.Lineage.RunID() != run) {
			continue
		}
		cm, err := get(name)
		if err != nil {
			notes = append(notes, fmt.Sprintf("The manifest copy in ConfigMap %q of Job %q cannot be read: %v.", name, m.Job.Name, err))
			continue
		}
		man, ok, err := lineage.ManifestFromConfigMap(cm, shards.RecordedHash(m.Job))
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
func (o *Options) offlineLineage() (*gather.File, string, []string, error) {
	paths := o.offlineFiles()
	if o.ShardsFile != "" {
		paths = append(paths, o.ShardsFile)
	}
	src := &gather.File{Files: strings.Join(paths, " and "), Stdin: o.In}
	for _, p := range paths {
		if _, err := src.Read(p, "the Jobs of a run, with their pods and ConfigMaps if wanted (kubectl get jobs,pods,configmaps -o json)"); err != nil {
			return nil, "", nil, err
		}
	}
	if len(src.JobList) == 0 {
		return nil, "", nil, exitcode.UsageError("%s holds no Job: give the root Job and its retries (a List, as kubectl get jobs -o json writes it)", o.Filename)
	}
	rootName, err := offlineRoot(src.JobList)
	if err != nil {
		return nil, "", nil, exitcode.Wrap(exitcode.Usage, err)
	}
	// The pods: records of the lineage or of its Jobs (-f, --pods-file), and pods as kubectl
	// saves them (--pods-file).
	run := offlineRunID(rootName, src.JobList)
	for _, p := range append(slices.Clone(o.records), o.PodsFile) {
		if p == "" {
			continue
		}
		if ok, err := src.ReadRunRecord(p, run, src.JobList); ok || err != nil {
			if err != nil {
				return nil, "", nil, err
			}
			continue
		}
		pods, err := source.ReadPods(p, o.In)
		if err != nil {
			return nil, "", nil, gather.PodsReadError(err, "kubectl get pods -n NAMESPACE -o json")
		}
		src.PodList = append(src.PodList, pods...)
	}
	src.Namespace = src.JobList[0].Namespace
	notes := slices.Clone(src.Notes)
	if len(src.PodList) == 0 {
		notes = append(notes, "No pods given: the report rests on the Jobs' status alone (no exit codes, so no invalid-input verdict).")
	}
	return src, rootName, notes, nil
}

// offlineRunID is the run of the lineage of root among jobs: the root's UID as its retries
// record it, else the root Job's ("" when neither says).
func offlineRunID(root string, jobs []*batchv1.Job) lineage.RunID {
	run := lineage.RunID{Root: root}
	for _, j := range jobs {
		if r := lineage.RunOf(j); r.Root == root && r.RootUID != "" && (run.RootUID == "" || lineage.IsRetry(j)) {
			run.RootUID = r.RootUID
		}
	}
	return run
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
		return "", fmt.Errorf("the Jobs given belong to %d lineages (%s): give the Jobs of one run only", len(roots), strings.Join(slices.Collect(maps.Keys(roots)), ", "))
	}
	for n := range roots {
		return n, nil
	}
	return "", nil
}

// wholeRunCommand is `kubectl indexed status RETRY --lineage` for retry job, in its namespace
// when it has one (offline reports of saved objects do), with the connection flags given. It
// names the retry, not the root: it works with the root gone, and a Job that took the root's
// name is not taken for it (the run is the one the retry records).
func wholeRunCommand(job *batchv1.Job, conn printcmd.Connection) string {
	words := []string{"kubectl", "indexed", "status", job.Name, "--lineage"}
	if job.Namespace != "" {
		words = append(words, "-n", job.Namespace)
	}
	return conn.Command(words...)
}
