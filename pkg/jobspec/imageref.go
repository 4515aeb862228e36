package jobspec

import (
	"regexp"
	"strings"
)

// The image reference grammar of github.com/distribution/reference v0.6.0 (regexp.go), which
// the API server uses (through pkg/util/parsers.ParseImageName) to choose the default
// imagePullPolicy. It is copied rather than imported to keep the plugin's dependencies small.
const (
	refAlphanumeric        = `[a-z0-9]+`
	refSeparator           = `(?:[._]|__|[-]+)`
	refDomainNameComponent = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	refOptionalPort        = `(?::[0-9]+)?`
	refTag                 = `[\w][\w.-]{0,127}`
	refDigest              = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}`
	refIPv6                = `\[(?:[a-fA-F0-9:]+)\]`
)

var (
	refDomainName    = refDomainNameComponent + `(?:\.` + refDomainNameComponent + `)*`
	refDomainAndPort = `(?:` + refDomainName + `|` + refIPv6 + `)` + refOptionalPort
	refPathComponent = refAlphanumeric + `(?:` + refSeparator + refAlphanumeric + `)*`
	refRemoteName    = refPathComponent + `(?:/` + refPathComponent + `)*`
	refName          = `(?:` + refDomainAndPort + `/)?` + refRemoteName

	referenceRE  = regexp.MustCompile(`^(` + refName + `)(?::(` + refTag + `))?(?:@(` + refDigest + `))?$`)
	anchoredName = regexp.MustCompile(`^(?:(` + refDomainAndPort + `)/)?(` + refRemoteName + `)$`)
	identifierRE = regexp.MustCompile(`^[a-f0-9]{64}$`)
	digestHexRE  = regexp.MustCompile(`^[a-f0-9]+$`)
)

// digestLengths are the hex lengths of the digest algorithms go-digest registers.
var digestLengths = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

// imageTag returns the tag ParseImageName reports for image: the tag if there is one,
// "latest" when there is neither tag nor digest, and "" when there is only a digest or the
// reference does not parse.
func imageTag(image string) string {
	tag, digest, problem := parseReference(image)
	switch {
	case problem != "":
		return ""
	case tag == "" && digest == "":
		return "latest"
	}
	return tag
}

// parseReference splits image as distribution/reference's ParseNormalizedNamed does: its tag
// and digest, or why it is not a reference (problem). A bare 64-hex identifier is a digest.
func parseReference(image string) (tag, digest, problem string) {
	if identifierRE.MatchString(image) {
		return "", image, ""
	}
	domain, remainder := splitDockerDomain(image)
	remote := remainder
	if i := strings.IndexRune(remainder, ':'); i > -1 {
		remote = remainder[:i]
	}
	if strings.ToLower(remote) != remote {
		return "", "", "the repository name must be lowercase"
	}
	m := referenceRE.FindStringSubmatch(domain + "/" + remainder)
	if m == nil {
		return "", "", "it is not a valid image reference ([registry/]name[:tag][@algorithm:digest], a lowercase name, a tag of at most 128 letters, digits, '_', '.' and '-')"
	}
	path := m[1]
	if nm := anchoredName.FindStringSubmatch(m[1]); len(nm) == 3 {
		path = nm[2]
	}
	if len(path) > 255 {
		return "", "", "the repository name is longer than 255 characters"
	}
	if m[3] != "" && !validDigest(m[3]) {
		return "", "", "its digest is not a sha256, sha384 or sha512 digest of the right length"
	}
	return m[2], m[3], ""
}

func validDigest(d string) bool {
	alg, hex, ok := strings.Cut(d, ":")
	if !ok {
		return false
	}
	n, known := digestLengths[alg]
	return known && len(hex) == n && digestHexRE.MatchString(hex)
}

// splitDockerDomain is distribution/reference's splitDockerDomain (normalize.go).
func splitDockerDomain(name string) (domain, remote string) {
	const defaultDomain, officialRepoPrefix = "docker.io", "library/"
	domain, remote, ok := strings.Cut(name, "/")
	if !ok || (!strings.ContainsAny(domain, ".:") && domain != "localhost" && strings.ToLower(domain) == domain) {
		domain, remote = defaultDomain, name
	}
	if domain == "index.docker.io" {
		domain = defaultDomain
	}
	if domain == defaultDomain && !strings.ContainsRune(remote, '/') {
		remote = officialRepoPrefix + remote
	}
	return domain, remote
}

// ImageReferenceError says why image is not a reference a kubelet can pull, or "" when it is
// one (or is empty: a missing image is the pod template's own error). The API server accepts
// any non-empty string in a Job's pod template; the kubelet then refuses the pod
// (InvalidImageName), so every index fails at run time. The grammar is distribution/reference's,
// as above.
func ImageReferenceError(image string) string {
	switch {
	case image == "":
		return ""
	case strings.TrimSpace(image) != image:
		return "it has leading or trailing whitespace"
	case strings.ContainsFunc(image, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return "it contains whitespace or a control character"
	}
	_, _, problem := parseReference(image)
	return problem
}
