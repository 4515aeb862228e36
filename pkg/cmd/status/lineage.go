package status

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/printcmd"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/htmlreport"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
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
	run, jobs, notes, err := o.src.Lineage(ctx, o.JobName)
	if err != nil {
		return err
	}
	return o.endLineage(ctx, run, jobs, notes, false)
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

// lineageReport is the report of the lineage from what gather's ReadLineage read: each Job's
// report made as plain status makes it.
func (o *Options) lineageReport(rd *gather.LineageRead) (*lineage.Report, error) {
	members := make([]lineage.Member, 0, len(rd.Members))
	for _, m := range rd.Members {
		o.warnShardsChanged(m.Job, m.Shards.Changed)
		opts := o.reportOptions(m.Shards.Notes, m.Shards)
		opts.AllIndexes = true
		members = append(members, lineage.Member{Job: m.Job, Lineage: m.Lineage, Report: m.Pods.Report(opts)})
	}
	r, err := lineage.BuildReportOf(rd.Namespace, rd.Run, members, rd.Manifest, rd.Notes)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	return r, nil
}

// offlineLineage reads into the source Run reads the Jobs (and any pods and ConfigMaps) of -f,
// the pods of --pods-file and the ConfigMaps of --shards-file: for example
//
//	kubectl get jobs,configmaps -l indexed.kubectl.io/root-job=eval -o json > lineage.json
//	kubectl get job eval -o json >> ... (the root carries no root-job label)
func (o *Options) offlineLineage() error {
	paths := o.jobFiles
	if o.ShardsFile != "" {
		paths = append(paths, o.ShardsFile)
	}
	src := &gather.File{Files: strings.Join(paths, " and "), Stdin: o.In}
	for _, p := range paths {
		if _, err := src.Read(p, "the Jobs of a run, with their pods and ConfigMaps if wanted (kubectl get jobs,pods,configmaps -o json)"); err != nil {
			return err
		}
	}
	if len(src.JobList) == 0 {
		return exitcode.UsageError("%s holds no Job: give the root Job and its retries (a List, as kubectl get jobs -o json writes it)", o.Filename)
	}
	rootName, err := gather.OfflineRoot(src.JobList)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
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
				return err
			}
			continue
		}
		pods, err := source.ReadPods(p, o.In)
		if err != nil {
			return gather.PodsReadError(err, "kubectl get pods -n NAMESPACE -o json")
		}
		src.PodList = append(src.PodList, pods...)
	}
	src.Namespace = src.JobList[0].Namespace
	o.src = src
	return nil
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
