package onceflag

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestOnce(t *testing.T) {
	var f string
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	StringVarP(fs, &f, "filename", "f", "", "a file")
	if err := fs.Parse([]string{"-f", "a.yaml"}); err != nil || f != "a.yaml" {
		t.Fatalf("once: %q %v", f, err)
	}
	fs = pflag.NewFlagSet("x", pflag.ContinueOnError)
	StringVarP(fs, &f, "filename", "f", "", "a file")
	err := fs.Parse([]string{"-f", "a.yaml", "--filename=b.yaml"})
	if err == nil || !strings.Contains(err.Error(), `given more than once ("a.yaml", then "b.yaml")`) {
		t.Errorf("twice: %v", err)
	}
	if fl := fs.Lookup("filename"); fl.Value.Type() != "string" || fl.DefValue != "" {
		t.Errorf("the flag must read as a string flag in help: %s %q", fl.Value.Type(), fl.DefValue)
	}
}

func TestFilesRepeatsAsKubectl(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var paths []string
	var display string
	FilesVarP(fs, &paths, &display, "filename", "f", "")
	if err := fs.Parse([]string{"-f", "job.json", "--filename=a.record,b.json"}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(paths, "|") != "job.json|a.record|b.json" || display != "job.json and a.record and b.json" {
		t.Errorf("paths %q, display %q", paths, display)
	}
}
