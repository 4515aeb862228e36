// Command record-verdicts re-records test/lint/corpus/verdicts.json: for every corpus manifest,
// what a real API server answers to `kubectl create --dry-run=server -f FILE` (make
// lint-verdicts starts a local control plane of the mirrored release (pkg/version) for it and stops it afterwards).
//
//	go run ./test/lint/cmd/record-verdicts --kubeconfig KUBECONFIG --kubectl KUBECTL [--corpus DIR]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	lintcorpus "github.com/kubectl-indexed/kubectl-indexed/test/lint"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "record-verdicts: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	corpus := flag.String("corpus", "test/lint/corpus", "corpus directory")
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster to ask")
	kubectl := flag.String("kubectl", "kubectl", "kubectl binary (the cluster's version)")
	namespace := flag.String("namespace", "default", "namespace for the dry-run creates")
	flag.Parse()
	if *kubeconfig == "" {
		return fmt.Errorf("--kubeconfig is required")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	version, err := serverVersion(ctx, *kubectl, *kubeconfig)
	if err != nil {
		return err
	}
	files, err := lintcorpus.Files(*corpus)
	if err != nil {
		return err
	}
	out := &lintcorpus.Verdicts{
		Kubernetes: version,
		Command:    "kubectl " + strings.Join(lintcorpus.CreateArgs("FILE", *namespace), " "),
		Verdicts:   map[string]lintcorpus.Verdict{},
	}
	rejected := 0
	for _, f := range files {
		v, err := lintcorpus.Check(ctx, *kubectl, *kubeconfig, *namespace, filepath.Join(*corpus, f))
		if err != nil {
			return err
		}
		out.Verdicts[f] = v
		if v.Rejected() {
			rejected++
		}
		fmt.Printf("%-8s %-12s %s\n", v.Verdict, v.By, f)
	}
	path := filepath.Join(*corpus, lintcorpus.VerdictsFile)
	if err := out.Save(path); err != nil {
		return err
	}
	fmt.Printf("%d manifests: %d rejected, %d accepted by %s; written to %s\n", len(files), rejected, len(files)-rejected, version, path)
	return nil
}

func serverVersion(ctx context.Context, kubectl, kubeconfig string) (string, error) {
	cmd := exec.CommandContext(ctx, kubectl, "version", "-o", "json")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("kubectl version: %w", err)
	}
	s := string(b)
	i := strings.Index(s, `"serverVersion"`)
	if i < 0 {
		return "", fmt.Errorf("kubectl version: no server version in %s", s)
	}
	j := strings.Index(s[i:], `"gitVersion": "`)
	if j < 0 {
		return "", fmt.Errorf("kubectl version: no gitVersion in %s", s)
	}
	rest := s[i+j+len(`"gitVersion": "`):]
	return rest[:strings.IndexByte(rest, '"')], nil
}
