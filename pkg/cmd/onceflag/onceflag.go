// Package onceflag is a string flag that may be given once: kubectl's repeatable habits (-f
// given twice) must not silently keep only the last value where a verb reads one file.
package onceflag

import (
	"fmt"

	"github.com/spf13/pflag"
)

// value is a string flag value that refuses a second Set.
type value struct {
	p   *string
	set bool
}

func (v *value) Set(s string) error {
	if v.set {
		return fmt.Errorf("given more than once (%q, then %q): this flag takes one value", *v.p, s)
	}
	*v.p, v.set = s, true
	return nil
}

func (v *value) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v *value) Type() string { return "string" }

// StringVarP defines a string flag, as pflag.FlagSet.StringVarP does, whose second occurrence
// on a command line is an error instead of replacing the first.
func StringVarP(fs *pflag.FlagSet, p *string, name, shorthand, value0, usage string) {
	*p = value0
	fs.VarP(&value{p: p}, name, shorthand, usage)
}
