package create

import (
	"context"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
)

// lost is the client's error for a POST whose connection closed before the answer came.
var lost = &url.Error{Op: "Post", URL: "https://127.0.0.1:6443/apis/batch/v1/namespaces/ml/jobs", Err: io.EOF}

// lostAfter makes the create of resource fail with err; when carry is true the server had the
// request and carried it out (the object is stored) before the answer was lost.
func lostAfter(c *fake.Clientset, resource string, carry bool, err error) {
	c.PrependReactor("create", resource, func(a k8stesting.Action) (bool, runtime.Object, error) {
		if carry {
			obj := a.(k8stesting.CreateAction).GetObject()
			if e := c.Tracker().Create(a.GetResource(), obj, a.GetNamespace()); e != nil {
				return true, nil, e
			}
		}
		return true, nil, err
	})
}

// TestCreateConfirmsAnAmbiguousWrite: after a Job create whose answer was lost (connection
// closed once the server had the POST, a timeout), create GETs the Job before saying what
// exists, and never offers to delete the shard ConfigMap, which the Job may be using (issue
// 26, item 2: it said "job was not created" and printed kubectl delete configmap).
func TestCreateConfirmsAnAmbiguousWrite(t *testing.T) {
	m, man := manifestFile(t)
	cm := scaffold.ConfigMapName(man)

	// Carried out, answer lost: the Job exists; create says so and exits 0.
	c := fake.NewClientset()
	lostAfter(c, "jobs", true, lost)
	save := filepath.Join(t.TempDir(), "eval.yaml")
	r := run(t, c, "eval", "--manifest", m, "--image", "img", "--save", save)
	if r.Code != 0 || !strings.Contains(r.Stdout, "job.batch/eval created") || !strings.Contains(r.Stderr, "a GET shows the Job exists") {
		t.Errorf("carried out: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stderr, "delete configmap") || strings.Contains(r.Stderr, "was not created") {
		t.Errorf("carried out: offers a delete or denies the Job:\n%s", r.Stderr)
	}
	if _, err := os.Stat(save); err != nil {
		t.Errorf("--save not written for a Job that was created: %v", err)
	}

	// Not carried out (a timeout before the server had it): a GET finds no Job.
	c = fake.NewClientset()
	lostAfter(c, "jobs", false, context.DeadlineExceeded)
	r = run(t, c, "eval", "--manifest", m, "--image", "img")
	msg := errText(r.Err)
	if r.Code != exitcode.Cluster || !strings.Contains(msg, `job "eval" was not created: a GET at`) || !strings.Contains(msg, "The shard ConfigMap(s) "+cm+" stay") {
		t.Errorf("not carried out: exit %d\n%s", r.Code, msg)
	}
	if strings.Contains(msg, "kubectl delete") {
		t.Errorf("not carried out: offers a delete:\n%s", msg)
	}

	// The GET fails too: unknown, and the ConfigMap must not be deleted.
	c = fake.NewClientset()
	lostAfter(c, "jobs", true, lost)
	gets := 0
	c.PrependReactor("get", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		gets++
		if gets == 1 {
			return false, nil, nil // the first GET (does the Job exist?) goes through
		}
		return true, nil, lost
	})
	r = run(t, c, "eval", "--manifest", m, "--image", "img")
	msg = errText(r.Err)
	if r.Code != exitcode.Cluster || !strings.Contains(msg, `whether job "eval" was created is unknown`) || !strings.Contains(msg, "Do not delete "+cm) || !strings.Contains(msg, "kubectl get job eval -n ml") {
		t.Errorf("unknown: exit %d\n%s", r.Code, msg)
	}
	if strings.Contains(msg, "kubectl delete") {
		t.Errorf("unknown: offers a delete:\n%s", msg)
	}

	// A 504 from the API server ("may still be processing"): the same look.
	c = fake.NewClientset()
	lostAfter(c, "jobs", true, apierrors.NewTimeoutError("request did not complete within 3s", 0))
	if r = run(t, c, "eval", "--manifest", m, "--image", "img"); r.Code != 0 || !strings.Contains(r.Stderr, "a GET shows the Job exists") {
		t.Errorf("504: exit %d\n%s", r.Code, r.Stderr)
	}

	// The ConfigMap's create was carried out and its answer lost: say it exists and that no
	// Job was sent.
	c = fake.NewClientset()
	lostAfter(c, "configmaps", true, lost)
	r = run(t, c, "eval", "--manifest", m, "--image", "img")
	msg = errText(r.Err)
	if r.Code != exitcode.Cluster || !strings.Contains(msg, `a GET shows configmap "`+cm+`" exists (it was created)`) || !strings.Contains(msg, `job "eval" was not sent`) {
		t.Errorf("configmap lost: exit %d\n%s", r.Code, msg)
	}
	for _, v := range verbs(c) {
		if v == "create jobs" {
			t.Errorf("a Job was sent after the ConfigMap's answer was lost")
		}
	}
}

// TestSaveOpenedBeforeSending: a --save that cannot be created (a missing directory, a file
// under /proc) is a usage error before anything is sent (issue 26, item 2: the objects were
// created, then exit 2, and a re-run of retry made another retry).
func TestSaveOpenedBeforeSending(t *testing.T) {
	m, _ := manifestFile(t)
	for _, save := range []string{filepath.Join(t.TempDir(), "no-such-dir", "eval.yaml"), "/proc/eval.yaml"} {
		c := fake.NewClientset()
		r := run(t, c, "eval", "--manifest", m, "--image", "img", "--save", save)
		if r.Code != exitcode.Usage || !strings.Contains(errText(r.Err), "nothing was sent") {
			t.Errorf("%s: exit %d: %v", save, r.Code, r.Err)
		}
		for _, v := range verbs(c) {
			if strings.HasPrefix(v, "create") {
				t.Errorf("%s: sent %s before finding out --save cannot be written", save, v)
			}
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestSaveAfterInterruptOnceCreated: SIGINT or SIGTERM while the Job's POST is in flight, which
// the server carried out: the Job exists, so --save holds it as the docs promise, and the exit
// code is the signal's (issue 35, item 4: the file was removed without a word). A --save that
// cannot be filled then is exit 1, saying so.
func TestSaveAfterInterruptOnceCreated(t *testing.T) {
	m, _ := manifestFile(t)
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		ctx, cancel := context.WithCancelCause(context.Background())
		c := fake.NewClientset()
		c.PrependReactor("create", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
			if err := c.Tracker().Create(a.GetResource(), a.(k8stesting.CreateAction).GetObject(), a.GetNamespace()); err != nil {
				return true, nil, err
			}
			cancel(&exitcode.Interrupt{Signal: sig})
			return true, nil, context.Canceled
		})
		save := filepath.Join(t.TempDir(), "eval.yaml")
		io := cmdtest.NewIO("")
		o := NewOptions(io.Streams())
		o.Namespace, o.Client = "ml", c
		r := io.RunContext(ctx, newCmd(nil, o), "eval", "--manifest", m, "--image", "img", "--save", save)
		want := (&exitcode.Interrupt{Signal: sig}).ExitCode()
		if r.Code != want || !strings.Contains(r.Stderr, "a GET shows the Job exists") {
			t.Errorf("%v: exit %d, want %d\n%s", sig, r.Code, want, r.Stderr)
		}
		b, err := os.ReadFile(save)
		if err != nil || !strings.Contains(string(b), "kind: Job") || !strings.Contains(r.Stderr, "saved the ConfigMap and the Job to "+save) {
			t.Errorf("%v: --save not written for a Job that exists: %v\n%s", sig, err, r.Stderr)
		}
	}
}
