package simulate

import (
	"strconv"
	"testing"
)

// benchJob is an Indexed Job of n indexes, all running at once, backoffLimitPerIndex 1, where
// every 100th index (1%) fails its first attempt (exit 1) and succeeds on the retry.
func benchJob(n int32) (*Outcomes, func() *Result) {
	j := job(n, n, nil)
	j.Spec.BackoffLimitPerIndex = i32(1)
	out := NewOutcomes()
	for i := int32(0); i < n; i += 100 {
		if err := out.ParseOutcome(strconv.Itoa(int(i)) + "=1,0"); err != nil {
			panic(err)
		}
	}
	return out, func() *Result {
		r, err := Simulate(j, out, Options{Start: t0})
		if err != nil {
			panic(err)
		}
		return r
	}
}

func benchmarkSimulate(b *testing.B, n int32) {
	_, sim := benchJob(n)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r := sim()
		if !r.Finished || r.Job.Status.Succeeded != n || r.Job.Status.Failed != n/100 {
			b.Fatalf("unexpected result: %s, succeeded %d failed %d", r.Outcome(), r.Job.Status.Succeeded, r.Job.Status.Failed)
		}
	}
}

func BenchmarkSimulate1k(b *testing.B)   { benchmarkSimulate(b, 1000) }
func BenchmarkSimulate100k(b *testing.B) { benchmarkSimulate(b, 100000) }

// BenchmarkPredict100k is what the command does: the simulation and its two timing variants.
func BenchmarkPredict100k(b *testing.B) {
	j := job(100000, 100000, nil)
	j.Spec.BackoffLimitPerIndex = i32(1)
	out, _ := benchJob(100000)
	b.ReportAllocs()
	for range b.N {
		if _, err := Predict(j, out, Options{Start: t0}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchmarkWaves simulates a Job of n indexes run par at a time (n/par waves of 1s pods, all
// succeeding): the cost of a sync must follow the pods that end, not the indexes.
func benchmarkWaves(b *testing.B, n, par int32) {
	j := job(n, par, nil)
	b.ReportAllocs()
	for range b.N {
		r, err := Simulate(j, nil, Options{Start: t0})
		if err != nil {
			b.Fatal(err)
		}
		if !r.Finished || r.Job.Status.Succeeded != n {
			b.Fatalf("unexpected result: %s, succeeded %d", r.Outcome(), r.Job.Status.Succeeded)
		}
	}
}

func BenchmarkSimulateWaves5000x1(b *testing.B)      { benchmarkWaves(b, 5000, 1) }
func BenchmarkSimulateWaves100000x1000(b *testing.B) { benchmarkWaves(b, 100000, 1000) }
