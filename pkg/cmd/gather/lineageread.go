package gather

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// The reads of a lineage's report (status --lineage): its Jobs (Lineage), then each Job's
// pods, index map and shard IDs, and the manifest copy when the root is gone (ReadLineage).

// Lineage GETs the Job named and its root, and LISTs the root's retries by label (ReadRun).
// The run is the Job's (lineage.RunOf): a Job of the root's name with another UID is not its
// root and is left out, with a note.
func (l *Live) Lineage(ctx context.Context, name string) (lineage.RunID, []*batchv1.Job, []string, error) {
	run, err := ReadRun(ctx, l, name, l.Namespace)
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

// Lineage is the run of the files' Jobs (OfflineRoot), every Job they hold, and what reading
// them found; name is not used (the files hold one run).
func (f *File) Lineage(_ context.Context, _ string) (lineage.RunID, []*batchv1.Job, []string, error) {
	root, err := OfflineRoot(f.JobList)
	if err != nil {
		return lineage.RunID{}, nil, nil, exitcode.Wrap(exitcode.Usage, err)
	}
	notes := slices.Clone(f.Notes)
	if len(f.PodList) == 0 {
		notes = append(notes, "No pods given: the report rests on the Jobs' status alone (no exit codes, so no invalid-input verdict).")
	}
	return lineage.RunID{Root: root}, f.JobList, notes, nil
}

// OfflineRoot is the root named by the retries in jobs, else the only Job without lineage.
func OfflineRoot(jobs []*batchv1.Job) (string, error) {
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
	names := slices.Collect(maps.Keys(roots))
	if len(names) != 1 {
		return "", fmt.Errorf("the Jobs given belong to %d lineages (%s): give the Jobs of one run only", len(names), strings.Join(names, ", "))
	}
	return names[0], nil
}

// Member is one Job of a lineage as read: its pods, its lineage and its shard IDs.
type Member struct {
	Job     *batchv1.Job
	Lineage *lineage.Lineage
	Pods    *indexstatus.Accumulator
	Shards  Shards
}

// LineageRead is what the report of the lineage of Run, in Namespace, is made from: its Jobs
// read (those that cannot be, left out with a note), the manifest copy when the root is gone,
// and the notes in the order the report says them.
type LineageRead struct {
	Namespace string
	Run       lineage.RunID
	Members   []Member
	Manifest  *lineage.Manifest
	Notes     []string
}

func (l *Live) ReadLineage(ctx context.Context, run lineage.RunID, jobs []*batchv1.Job, notes []string, want PodRead) (*LineageRead, error) {
	return readLineage(ctx, l, run, jobs, notes, want)
}

func (f *File) ReadLineage(ctx context.Context, run lineage.RunID, jobs []*batchv1.Job, notes []string, want PodRead) (*LineageRead, error) {
	return readLineage(ctx, f, run, jobs, notes, want)
}

// readLineage reads, live or offline, each Job's pods, index map and shard ConfigMap as the
// report of one Job does, then the manifest copy (lineageManifest); its notes follow notes.
func readLineage(ctx context.Context, src Source, run lineage.RunID, all []*batchv1.Job, notes []string, want PodRead) (*LineageRead, error) {
	rd := &LineageRead{Namespace: src.InNamespace(), Run: run, Members: make([]Member, 0, len(all)), Notes: notes}
	for _, j := range all {
		if err := indexstatus.CheckIndexed(j); err != nil {
			rd.Notes = append(rd.Notes, fmt.Sprintf("Job %q is left out: %v.", j.Name, err))
			continue
		}
		acc, _, err := src.JobPods(ctx, j, want) // one read per Job
		if err != nil {
			return nil, err
		}
		m := Member{Job: j, Pods: acc}
		if l, ok, err := lineage.ReadResolved(j, IndexMap(ctx, src, j)); ok {
			if err != nil {
				rd.Notes = append(rd.Notes, fmt.Sprintf("Job %q is left out: %v.", j.Name, err))
				continue
			}
			m.Lineage = l
		}
		m.Shards = readShards(ctx, src, j)
		rd.Members = append(rd.Members, m)
		rd.Notes = append(rd.Notes, m.Shards.Notes...)
	}
	manifest, n := lineageManifest(run, rd.Members, func(name string) (*corev1.ConfigMap, error) {
		cm, err := src.ConfigMap(ctx, name)
		if m, ok := IsMissing(err); ok {
			return nil, fmt.Errorf("%s does not hold it", m.Files)
		}
		return cm, err
	})
	rd.Manifest, rd.Notes = manifest, append(rd.Notes, n...)
	return rd, nil
}

// lineageManifest reads, when the root Job of run is not among members (deleted by hand or
// by its TTL, or replaced by a Job of its name), the manifest copy in a retry's shard
// ConfigMap, so that the report counts every shard of the manifest, not only those the
// retries ran. nil with the root present.
func lineageManifest(run lineage.RunID, members []Member, get func(string) (*corev1.ConfigMap, error)) (*lineage.Manifest, []string) {
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
