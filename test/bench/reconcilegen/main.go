// Command reconcilegen writes a shard manifest and a directory of receipts for
// test/bench/reconcile.sh: SHARDS shards of CASES/SHARDS cases, one receipt per shard (every
// case completed), plus a second attempt for one shard in ten (duplicates to resolve) and one
// case left out of the last shard's receipt.
//
// With -mixed the shards are in every state reconcile gives, by index modulo 7: 0 and 1
// complete, 2 failed (its first case a model failure), 3 partial (its last case left out), 4
// not evaluated (every case an infrastructure failure), 5 missing (no receipt), 6 rejected (a
// receipt for another manifest hash); no second attempts. test/browser draws it.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/receipt"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

func main() {
	n := flag.Int("shards", 1000, "shards")
	cases := flag.Int("cases", 1000000, "cases in all")
	dir := flag.String("dir", "", "output directory (manifest.json and receipts/)")
	mixed := flag.Bool("mixed", false, "shards in every reconcile state, by index modulo 7")
	flag.Parse()
	var err error
	if *mixed {
		err = runMixed(*n, *cases, *dir)
	} else {
		err = run(*n, *cases, *dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "reconcilegen:", err)
		os.Exit(1)
	}
}

func run(n, total int, dir string) error {
	m := &shards.Manifest{APIVersion: shards.APIVersion, Kind: shards.Kind, Metadata: shards.Metadata{Name: "bench"}, Revision: "1"}
	m.Shards = make([]shards.Shard, n)
	for k := range m.Shards {
		m.Shards[k].ID = fmt.Sprintf("shard-%04d", k)
	}
	for c := range total {
		k := c % n
		m.Shards[k].Cases = append(m.Shards[k].Cases, fmt.Sprintf("bench/case-%07d", c))
	}
	if err := os.MkdirAll(filepath.Join(dir, "receipts"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), m.Canonical(), 0o644); err != nil {
		return err
	}
	hash := m.Hash()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func(k int, attempt string, fin time.Time, drop int) error {
		sh := m.Shards[k]
		r := receipt.Receipt{APIVersion: receipt.APIVersion, Kind: receipt.Kind, Attempt: receipt.Attempt{
			Manifest: contract.ManifestRef{Name: "bench", Revision: "1", Hash: hash}, ShardID: sh.ID, CompletionIndex: k,
			Job: contract.JobRef{Name: "bench"}, AttemptID: attempt,
			Assigned: receipt.Assigned{Count: len(sh.Cases), Digest: receipt.CasesDigest(sh.Cases)}},
			Completed: make([]receipt.Result, 0, len(sh.Cases)), Failed: []receipt.Failure{}, FinishedAt: &fin,
			Outputs: []string{"s3://bench/" + sh.ID + "/"}}
		for i, c := range sh.Cases[:len(sh.Cases)-drop] {
			if i%100 == 7 {
				r.Failed = append(r.Failed, receipt.Failure{Case: c, Class: receipt.ClassModel, Reason: "wrong answer"})
				continue
			}
			r.Completed = append(r.Completed, receipt.Result{Case: c})
		}
		b, err := json.Marshal(&r)
		if err != nil {
			return err
		}
		d := filepath.Join(dir, "receipts", sh.ID)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(d, attempt+receiptSuffix), b, 0o644)
	}
	for k := range n {
		drop := 0
		if k == n-1 {
			drop = 1
		}
		if err := write(k, fmt.Sprintf("bench-%d-a", k), t0.Add(time.Minute), drop); err != nil {
			return err
		}
		if k%10 == 0 {
			if err := write(k, fmt.Sprintf("bench-%d-b", k), t0.Add(2*time.Minute), 0); err != nil {
				return err
			}
		}
	}
	return nil
}

const receiptSuffix = ".receipt.json"

// runMixed writes a manifest of n shards and receipts that put shard k in the state k%7 names
// (the -mixed flag).
func runMixed(n, total int, dir string) error {
	m := &shards.Manifest{APIVersion: shards.APIVersion, Kind: shards.Kind, Metadata: shards.Metadata{Name: "mixed"}, Revision: "1"}
	m.Shards = make([]shards.Shard, n)
	for k := range m.Shards {
		m.Shards[k].ID = fmt.Sprintf("shard-%04d", k)
	}
	for c := range max(total, 2*n) {
		m.Shards[c%n].Cases = append(m.Shards[c%n].Cases, fmt.Sprintf("mixed/case-%07d", c))
	}
	if err := os.MkdirAll(filepath.Join(dir, "receipts"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), m.Canonical(), 0o644); err != nil {
		return err
	}
	fin := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	for k, sh := range m.Shards {
		kind := k % 7
		if kind == 5 {
			continue // missing: no receipt
		}
		hash := m.Hash()
		if kind == 6 {
			hash = shards.FormatHash(make([]byte, 32)) // another manifest's: rejected
		}
		attempt := fmt.Sprintf("mixed-%d-a", k)
		r := receipt.Receipt{APIVersion: receipt.APIVersion, Kind: receipt.Kind, Attempt: receipt.Attempt{
			Manifest: contract.ManifestRef{Name: "mixed", Revision: "1", Hash: hash}, ShardID: sh.ID, CompletionIndex: k,
			Job: contract.JobRef{Name: "mixed"}, AttemptID: attempt,
			Assigned: receipt.Assigned{Count: len(sh.Cases), Digest: receipt.CasesDigest(sh.Cases)}},
			Completed: []receipt.Result{}, Failed: []receipt.Failure{}, FinishedAt: &fin}
		for i, c := range sh.Cases {
			switch {
			case kind == 2 && i == 0:
				r.Failed = append(r.Failed, receipt.Failure{Case: c, Class: receipt.ClassModel, Reason: "wrong answer"})
			case kind == 3 && i == len(sh.Cases)-1:
				// left out: partial
			case kind == 4:
				r.Failed = append(r.Failed, receipt.Failure{Case: c, Class: receipt.ClassInfrastructure, Reason: "timeout"})
			default:
				r.Completed = append(r.Completed, receipt.Result{Case: c})
			}
		}
		b, err := json.Marshal(&r)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "receipts", attempt+receiptSuffix), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
