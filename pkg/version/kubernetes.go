package version

import (
	"strconv"
	"strings"
)

// Kubernetes is the Kubernetes release the plugin mirrors: the API server validation and
// defaulting of pkg/jobspec and pkg/lint, the Job controller of pkg/jobpolicy and pkg/simulate,
// the k8s.io/* modules of go.mod (v0.MINOR.PATCH) and the local control plane of test/cluster.
//
// It is the only place the version is written in Go source (TestKubernetesVersionWrittenOnce
// fails otherwise). Moving to a new release is a change of this constant plus, in the same
// commit:
//   - go.mod: every k8s.io/* module at v0.MINOR.PATCH (go get, go mod tidy), and
//     test/cluster/go.mod: k8s.io/kubernetes vMAJOR.MINOR.PATCH and its replace block
//     (test/harness keeps these in step with this constant);
//   - pkg/lint/version.go: a row for every Job feature that moved in the new release (the
//     feature table; DefaultKubeVersion follows this constant by itself);
//   - the mirrored semantics: pkg/jobspec, pkg/jobpolicy, pkg/indexstatus against the new
//     pkg/apis/batch and pkg/controller/job;
//   - re-recorded data, captured from the new control plane, never edited by hand:
//     test/lint/corpus/verdicts.json (make lint-verdicts), test/fixtures (the e2e capture
//     test), and the golden files that quote the version (go test ./pkg/... -update).
const Kubernetes = "1.37.2"

// KubernetesMinor is Kubernetes without its patch number, e.g. "1.37".
var KubernetesMinor = Kubernetes[:strings.LastIndex(Kubernetes, ".")]

// KubernetesMajorMinor returns the major and minor numbers of Kubernetes, e.g. 1 and 37.
func KubernetesMajorMinor() (major, minor int) {
	parts := strings.Split(Kubernetes, ".")
	major, _ = strconv.Atoi(parts[0])
	minor, _ = strconv.Atoi(parts[1])
	return major, minor
}
