package jobpolicy

import (
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkEvaluate100k: a Job of 100,000 indexes with backoffLimitPerIndex, half of them
// recorded as completed in one interval per two indexes (the worst case for the status
// strings), and one pod per index.
func BenchmarkEvaluate100k(b *testing.B) {
	const n = 100000
	job := indexedJob(n, 10000).perIndex(1)
	var done strings.Builder
	for i := 0; i < n; i += 2 {
		if i > 0 {
			done.WriteString(",")
		}
		done.WriteString(strconv.Itoa(i))
	}
	job.Status.CompletedIndexes = done.String()
	pods := make([]Pod, 0, n)
	for i := 0; i < n; i++ {
		p := pod("p"+strconv.Itoa(i), i).tracked()
		if i%2 == 0 {
			p = p.phase(corev1.PodSucceeded)
		} else {
			p = p.phase(corev1.PodRunning)
		}
		pods = append(pods, ObservePod(job.Job, p.Pod))
	}
	b.ResetTimer()
	for range b.N {
		Evaluate(job.Job, pods, t0)
	}
}
