package lint

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/version"
)

// Version is a Kubernetes minor version (e.g. 1.33).
type Version struct {
	Major, Minor int
}

// DefaultKubeVersion is the version whose API server lint mirrors: the minor of
// version.Kubernetes. The feature table below must know every Job feature up to it.
var DefaultKubeVersion = func() Version {
	major, minor := version.KubernetesMajorMinor()
	return Version{major, minor}
}()

// OldestKubeVersion is the oldest --kube-version lint knows the Job feature history of.
var OldestKubeVersion = Version{1, 21}

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// Less reports whether v is older than o.
func (v Version) Less(o Version) bool {
	return v.Major < o.Major || (v.Major == o.Major && v.Minor < o.Minor)
}

// IsZero reports whether v is unset.
func (v Version) IsZero() bool { return v == Version{} }

// ParseVersion parses "1.29", "v1.29" or "1.29.3" and checks that lint knows it
// (OldestKubeVersion to DefaultKubeVersion).
func ParseVersion(s string) (Version, error) {
	v, ok := parseVersion(s)
	if !ok {
		return Version{}, fmt.Errorf("invalid Kubernetes version %q: want MAJOR.MINOR, e.g. 1.33", s)
	}
	if v.Less(OldestKubeVersion) || DefaultKubeVersion.Less(v) {
		return Version{}, fmt.Errorf("unsupported Kubernetes version %s: lint knows %s to %s", v, OldestKubeVersion, DefaultKubeVersion)
	}
	return v, nil
}

// NewerThanKnown reports whether s is a well-formed version newer than DefaultKubeVersion:
// lint then checks with the newest rules it mirrors, and says so.
func NewerThanKnown(s string) (Version, bool) {
	v, ok := parseVersion(s)
	return v, ok && DefaultKubeVersion.Less(v)
}

// parseVersion reads "1.29", "v1.29" or "1.29.3"; ok is false for anything else.
func parseVersion(s string) (Version, bool) {
	parts := strings.Split(strings.TrimPrefix(strings.TrimSpace(s), "v"), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, false
	}
	var nums [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return Version{}, false
		}
		nums[i] = n
	}
	return Version{nums[0], nums[1]}, true
}

// feature is a row of the Job feature history (Kubernetes release notes and feature gates).
type feature struct {
	name  string
	gate  string
	alpha Version // zero: started as beta
	beta  Version // zero: never beta (alpha only)
	ga    Version // zero: not GA in DefaultKubeVersion
}

var (
	featIndexed          = feature{"completionMode: Indexed", "IndexedJob", Version{1, 21}, Version{1, 22}, Version{1, 24}}
	featSuspend          = feature{"suspend", "SuspendJob", Version{1, 21}, Version{1, 22}, Version{1, 24}}
	featPodFailurePolicy = feature{"podFailurePolicy", "JobPodFailurePolicy", Version{1, 25}, Version{1, 26}, Version{1, 31}}
	featPerIndex         = feature{"backoffLimitPerIndex", "JobBackoffLimitPerIndex", Version{1, 28}, Version{1, 29}, Version{1, 33}}
	featMaxFailedIndexes = feature{"maxFailedIndexes", "JobBackoffLimitPerIndex", Version{1, 28}, Version{1, 29}, Version{1, 33}}
	featFailIndex        = feature{"podFailurePolicy action FailIndex", "JobBackoffLimitPerIndex", Version{1, 28}, Version{1, 29}, Version{1, 33}}
	featPodReplacement   = feature{"podReplacementPolicy", "JobPodReplacementPolicy", Version{1, 28}, Version{1, 29}, Version{1, 34}}
	featSuccessPolicy    = feature{"successPolicy", "JobSuccessPolicy", Version{1, 30}, Version{1, 31}, Version{1, 33}}
	featManagedBy        = feature{"managedBy", "JobManagedBy", Version{1, 30}, Version{1, 32}, Version{1, 35}}
	featScheduling       = feature{"scheduling", "WorkloadWithJob", Version{1, 36}, Version{}, Version{}}
)

// availability says how a feature stands in version v: "" when GA (nothing to say), otherwise
// the severity of the finding and the sentence that explains it.
func (f feature) availability(v Version) (Severity, string) {
	switch {
	case !f.ga.IsZero() && !v.Less(f.ga):
		return "", ""
	case !f.beta.IsZero() && !v.Less(f.beta):
		return SeverityInfo, fmt.Sprintf("%s is beta in Kubernetes %s (feature gate %s, on by default; GA in %s): it works unless the cluster turned the gate off", f.name, v, f.gate, f.ga)
	case !f.alpha.IsZero() && !v.Less(f.alpha):
		when := "it is not beta in any release lint knows"
		if !f.beta.IsZero() {
			when = fmt.Sprintf("on by default from %s", f.beta)
		}
		return SeverityWarning, fmt.Sprintf("%s is alpha in Kubernetes %s (feature gate %s, off by default; %s): the API server drops the field silently and the Job runs without it", f.name, v, f.gate, when)
	default:
		// The API server of that version rejects it: an error for that version. The feature
		// arrived with its alpha, or its beta when it started as beta.
		return SeverityError, fmt.Sprintf("%s does not exist in Kubernetes %s (it arrived in %s): the API server of that version rejects the field as unknown under kubectl's strict field validation, or drops it with --validate=false", f.name, v, cmp.Or(f.alpha, f.beta))
	}
}
