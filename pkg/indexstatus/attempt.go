package indexstatus

import "time"

// attemptID is what orders a pod among its index's attempts (later).
type attemptID struct {
	attempt           int32
	created, finished time.Time
}

func idOf(p *podSummary) attemptID {
	return attemptID{p.Attempt(), p.Created, p.Finished}
}

// later orders attempts: by the attempt annotation, then by creation, then finish time.
func (p attemptID) later(q attemptID) bool {
	if p.attempt != q.attempt {
		return p.attempt > q.attempt
	}
	if !p.created.Equal(q.created) {
		return p.created.After(q.created)
	}
	return p.finished.After(q.finished)
}

// podNames lists the names of an index's pods (in list order, as groupPods sorts them).
func podNames(pods []*podSummary) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}
