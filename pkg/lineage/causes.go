package lineage

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

// A lineage groups its shards by cause as status groups indexes: what happened to a shard in
// each attempt (failed with exit code 1 in container embed, then succeeded), not which Job ran
// it. A plain Job's retry makes one Job per shard (eval-r1-3, eval-r1-6, ...), so grouping by
// Job name made one group, and one verdict clause, per shard (issue 36, item 10).

// attemptOf maps each Job of the report to its attempt (0 the root).
func attemptOf(r *Report) map[string]int {
	m := make(map[string]int, len(r.Jobs))
	for _, j := range r.Jobs {
		m[j.Name] = j.Attempt
	}
	return m
}

// causeKey is what a shard's runs say without their Jobs' names: per run, its attempt and
// outcome (runOutcome: state, exit code, container, reason, rule, invalid input).
func causeKey(s *ShardStatus, attempts map[string]int) string {
	parts := make([]string, len(s.Runs))
	for k, run := range s.Runs {
		parts[k] = strconv.Itoa(attempts[run.Job]) + ":" + runOutcome(run)
	}
	return strings.Join(parts, "\n")
}

// causeGroup is the shards of one cause key, in index order.
type causeGroup struct {
	shards []*ShardStatus
	set    indexes.Builder
}

// groupBy gathers shards into groups by key, in the order of each group's first shard.
func groupBy(shards []ShardStatus, key func(*ShardStatus) string) ([]*causeGroup, map[string]*causeGroup) {
	var order []*causeGroup
	byKey := map[string]*causeGroup{}
	for i := range shards {
		s := &shards[i]
		k := key(s)
		g := byKey[k]
		if g == nil {
			g = &causeGroup{}
			byKey[k] = g
			order = append(order, g)
		}
		g.shards = append(g.shards, s)
		g.set.Add(s.Index)
	}
	return order, byKey
}

// jobLabel names the Jobs that made run k of the group's shards: the Job when they share it
// (the root, a retry of a Job made by create), else the per-index name the plain retry
// gives them ("eval-r1-<root index>"), else how many Jobs they are.
func (g *causeGroup) jobLabel(k int) string {
	first := g.shards[0].Runs[k].Job
	same, perIndex := true, ""
	if s := g.shards[0]; strings.HasSuffix(first, "-"+strconv.Itoa(s.Index)) {
		perIndex = strings.TrimSuffix(first, strconv.Itoa(s.Index))
	}
	names := map[string]bool{}
	for _, s := range g.shards {
		name := s.Runs[k].Job
		names[name] = true
		same = same && name == first
		if perIndex != "" && name != perIndex+strconv.Itoa(s.Index) {
			perIndex = ""
		}
	}
	switch {
	case same:
		return first
	case perIndex != "":
		return perIndex + "<root index>"
	}
	return fmt.Sprintf("%d Jobs", len(names))
}

// story says per Job what happened to the group's shards, in attempt order, the Jobs with the
// same outcome together: "failed as invalid input in seed and seed-r1", or "failed (exit code
// 1 in container embed) in j2, then failed as invalid input in j2-r1".
func (g *causeGroup) story() string {
	var parts, jobs []string
	last := ""
	flush := func() {
		if len(jobs) > 0 {
			parts = append(parts, last+" in "+andList(jobs))
		}
	}
	for k, run := range g.shards[0].Runs {
		why := runOutcome(run)
		if why != last {
			flush()
			last, jobs = why, nil
		}
		jobs = append(jobs, g.jobLabel(k))
	}
	flush()
	return strings.Join(parts, ", then ")
}

// viaText is the Jobs the group's shards went through with their state there:
// "seed:Failed seed-r1:Succeeded", "eval:Failed eval-r1-<root index>:Failed".
func (g *causeGroup) viaText() string {
	runs := g.shards[0].Runs
	out := make([]string, len(runs))
	for k, run := range runs {
		out[k] = g.jobLabel(k) + ":" + string(run.State)
	}
	return strings.Join(out, " ")
}

// names names the group's shards: "shard s-2", "shards 4,9-12" (by root index, as status
// names indexes), or by shard ID "shards s-3, s-6 and s-9" (the first five, then how many
// more).
func (g *causeGroup) names() string {
	if len(g.shards) == 1 {
		return "shard " + shardName(*g.shards[0])
	}
	if g.shards[0].ShardID == "" {
		return "shards " + g.set.Set().Truncated(60)
	}
	var ids []string
	for k, s := range g.shards {
		if k == verdictShards {
			ids = append(ids, fmt.Sprintf("%d more", len(g.shards)-k))
			break
		}
		ids = append(ids, shardName(*s))
	}
	return "shards " + andList(ids)
}

// failedClauses names the failed shards one clause per cause (indexstatus.CauseClauses, as
// status's Why): "shards 3,6,9 failed (exit code 1 in container embed) in eval and
// eval-r1-<root index>; shard s-2 failed as invalid input (exit 42) in seed and seed-r1".
func failedClauses(r *Report, failed []ShardStatus) string {
	attempts := attemptOf(r)
	_, groups := groupBy(failed, func(s *ShardStatus) string { return causeKey(s, attempts) })
	var c indexstatus.CauseClauses
	for k := range failed {
		c.Add(failed[k].Index, causeKey(&failed[k], attempts), 1)
	}
	return c.Join(func(_ indexes.Set, _ int, k string) string {
		g := groups[k]
		return g.names() + " " + g.story()
	})
}
