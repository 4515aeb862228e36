// Package version holds the build information stamped into the binary at link time.
package version

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
)

// These are set with -ldflags "-X ..." by the Makefile and goreleaser.
var (
	version = "dev"
	commit  = ""
	date    = ""
)

// Info describes this build of kubectl-indexed.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Date      string `json:"date,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Get returns the build information. When the binary was not stamped (go install, go run),
// the module version and VCS revision recorded by the Go toolchain are used instead.
func Get() Info {
	info := Info{
		Version:   version,
		Commit:    commit,
		Date:      date,
		GoVersion: runtime.Version(),
		Platform:  fmt.Sprintf("%s/%s", runtime.GOOS, runtime.GOARCH),
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if info.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Commit = cmp.Or(info.Commit, s.Value)
			case "vcs.time":
				info.Date = cmp.Or(info.Date, s.Value)
			}
		}
	}
	return info
}
