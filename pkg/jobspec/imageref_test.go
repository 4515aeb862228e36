package jobspec

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestImageTag: the cases follow distribution/reference's ParseNormalizedNamed and
// ParseImageName, which choose the default imagePullPolicy on the server.
func TestImageTag(t *testing.T) {
	digest := "sha256:7cc4b5aefd1d0cadf8d97d4350462ba51c694ebca145b08d7d41b41acc8db5aa"
	for image, want := range map[string]string{
		"busybox":                                  "latest",
		"busybox:latest":                           "latest",
		"busybox:1.36":                             "1.36",
		"library/busybox:1.36":                     "1.36",
		"docker.io/library/busybox":                "latest",
		"index.docker.io/busybox:musl":             "musl",
		"localhost/eval":                           "latest",
		"localhost:5000/eval:v2":                   "v2",
		"registry.example.com:5000/team/eval:v1.2": "v1.2",
		"registry.example.com/team/eval":           "latest",
		"[::1]:5000/eval:dev":                      "dev",
		"busybox@" + digest:                        "",
		"busybox:1.36@" + digest:                   "1.36",
		"busybox@sha256:abc":                       "", // digest too short: does not parse
		"busybox@md5:" + strings.Repeat("a", 32):   "", // unknown algorithm: does not parse
		"BusyBox":                                  "", // upper case repository: does not parse
		"Example.com/team/eval:v1":                 "v1",
		"example.com/Team/eval:v1":                 "",
		"":                                         "",
		"busybox:":                                 "",
		"busybox:-x":                               "",
		strings.Repeat("a", 64):                    "", // a 64-hex identifier is not a name
		"a/" + strings.Repeat("b", 300):            "", // name too long
		"eval:" + strings.Repeat("t", 128):         strings.Repeat("t", 128),
		"eval:" + strings.Repeat("t", 129):         "",
	} {
		if got := imageTag(image); got != want {
			t.Errorf("imageTag(%q) = %q, want %q", image, got, want)
		}
	}
}

func TestDefaultPullPolicy(t *testing.T) {
	for image, want := range map[string]corev1.PullPolicy{
		"busybox":        corev1.PullAlways,
		"busybox:latest": corev1.PullAlways,
		"busybox:1.36":   corev1.PullIfNotPresent,
		"BusyBox":        corev1.PullIfNotPresent,
	} {
		if got := defaultPullPolicy(image); got != want {
			t.Errorf("defaultPullPolicy(%q) = %s, want %s", image, got, want)
		}
	}
}

// FuzzImageTag: any string is handled without panic; a parsed tag is a valid tag and
// appears in the image.
func FuzzImageTag(f *testing.F) {
	for _, s := range []string{"busybox", "busybox:1.36", "localhost:5000/a/b:c", "[::1]:5000/x", "a@sha256:" + strings.Repeat("0", 64), ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, image string) {
		tag := imageTag(image)
		if tag == "" || tag == "latest" {
			return
		}
		if !strings.Contains(image, ":"+tag) {
			t.Errorf("imageTag(%q) = %q, not in the image", image, tag)
		}
		if len(tag) > 128 {
			t.Errorf("imageTag(%q) = %q: longer than a tag may be", image, tag)
		}
	})
}

// TestImageReferenceError: references the kubelet refuses are named, those it pulls are not.
func TestImageReferenceError(t *testing.T) {
	for image, bad := range map[string]bool{
		"busybox:1.36":                                  false,
		"registry.example:5000/team/eval:1.4":           false,
		"localhost/x@sha256:" + strings.Repeat("a", 64): false,
		strings.Repeat("a", 64):                         false,
		"":                                              false,
		"busybox:1.36 ":                                 true,
		" busybox":                                      true,
		"busy box":                                      true,
		"Busybox:1.36":                                  true,
		"busybox:1.36:2":                                true,
		"busybox@sha256:abc":                            true,
		"busybox:" + strings.Repeat("t", 129):           true,
		"busybox:\t1":                                   true,
	} {
		if got := ImageReferenceError(image); (got != "") != bad {
			t.Errorf("%q: %q, want bad=%v", image, got, bad)
		}
	}
}
