// Package jobref reads a Job argument the way kubectl users write it: NAME, or TYPE/NAME as
// "kubectl get -o name" prints it (job.batch/NAME) and as kubectl takes it (job/NAME,
// jobs/NAME, jobs.batch/NAME, jobs.v1.batch/NAME).
package jobref

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// types are the spellings of the Job resource kubectl resolves (kind, resource, with group
// and version), in lower case.
var types = map[string]bool{
	"job": true, "jobs": true,
	"job.batch": true, "jobs.batch": true,
	"job.v1.batch": true, "jobs.v1.batch": true,
}

// Name returns the Job name in arg. A TYPE/NAME of another type, or a name that is not a
// valid object name, is an error saying what was expected.
func Name(arg string) (string, error) {
	name := arg
	if typ, rest, ok := strings.Cut(arg, "/"); ok {
		if !types[strings.ToLower(typ)] {
			return "", fmt.Errorf("%q is not a Job: give NAME or job/NAME (kubectl get jobs -o name prints job.batch/NAME)", arg)
		}
		name = rest
	}
	if name == "" {
		return "", fmt.Errorf("%q names no Job: give NAME or job/NAME", arg)
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return "", fmt.Errorf("%q is not a valid Job name: %s", name, strings.Join(msgs, "; "))
	}
	return name, nil
}
