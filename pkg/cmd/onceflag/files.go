package onceflag

import (
	"strings"

	"github.com/spf13/pflag"
)

// files is a repeatable -f, as kubectl's: each occurrence adds files (a comma list too), and
// display is kept as the files joined by " and ", for messages that name them.
type files struct {
	paths   *[]string
	display *string
}

func (v *files) Set(s string) error {
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*v.paths = append(*v.paths, p)
		}
	}
	*v.display = strings.Join(*v.paths, " and ")
	return nil
}

func (v *files) String() string {
	if v.paths == nil || len(*v.paths) == 0 {
		return "" // no "(default [])" in the help
	}
	return "[" + strings.Join(*v.paths, ",") + "]"
}

// Type is pflag's of a string slice: help shows "strings".
func (v *files) Type() string { return "stringSlice" }

// FilesVarP defines a repeatable file flag, as kubectl's -f: every value given (repeated, or
// a comma list) is appended to paths, and display says them all ("a.json and b.json", "" when
// none), for the messages and the checks that read one string.
func FilesVarP(fs *pflag.FlagSet, paths *[]string, display *string, name, shorthand, usage string) {
	*paths, *display = nil, ""
	fs.VarP(&files{paths: paths, display: display}, name, shorthand, usage)
}
