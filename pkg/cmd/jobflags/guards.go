package jobflags

import (
	"errors"
	"os"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobspec"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// checkFlags refuses, before anything is read from or sent to the cluster, the flags the API
// server or the file system would refuse half-way: a field manager the server rejects (it would
// reject the Job after the ConfigMap was created), --save to standard output (where the
// objects are printed) and --save to a file that exists (it is never overwritten, and finding
// out after the objects were created would leave no record of them).
func (o *Submitter) checkFlags() error {
	if errs := metav1validation.ValidateFieldManager(o.FieldManager, field.NewPath("fieldManager")); len(errs) > 0 {
		return exitcode.UsageError("--field-manager %q: %s (the API server allows at most %d printable characters)",
			textwrap.Truncate(o.FieldManager, 40, "..."), errs.ToAggregate().Error(), metav1validation.FieldManagerMaxLength)
	}
	switch {
	case o.SaveFile == source.StdinName:
		return exitcode.UsageError("--save -: standard output is where the created objects are printed; give a file name, or print the objects with --dry-run=client -o yaml")
	case o.SaveFile != "":
		if _, err := os.Lstat(o.SaveFile); err == nil {
			return exitcode.UsageError("--save %s: the file exists; it is never overwritten: remove it or choose another name (nothing was sent)", o.SaveFile)
		} else if !errors.Is(err, os.ErrNotExist) {
			return exitcode.UsageError("--save: %w", err)
		}
	}
	return nil
}

// checkAnnotationsSize refuses an object whose annotations exceed what the API server stores
// (256 KiB in total), naming --save-config when its last-applied-configuration is the cause.
// obj has its kind (setKinds).
func checkAnnotationsSize(obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	if err := apivalidation.ValidateAnnotationsSize(m.GetAnnotations()); err != nil {
		return exitcode.UsageError("--save-config: the last-applied-configuration annotation makes the annotations of %s %q larger than the API server's limit of %d bytes (%v): nothing was sent. Create without --save-config (kubectl apply can still adopt the objects later with --server-side)",
			strings.ToLower(obj.GetObjectKind().GroupVersionKind().Kind), m.GetName(), apivalidation.TotalAnnotationSizeLimitB, err)
	}
	return nil
}

// checkImages refuses an image reference no kubelet can pull (a trailing space, an uppercase
// name ...): the API server accepts the Job, and then every pod fails with InvalidImageName.
func checkImages(job *batchv1.Job) error {
	spec := &job.Spec.Template.Spec
	for _, list := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range list {
			if why := jobspec.ImageReferenceError(c.Image); why != "" {
				return exitcode.UsageError("container %q: image %q cannot be pulled: %s. The API server would accept the Job and every pod would then fail (InvalidImageName); nothing was sent", c.Name, c.Image, why)
			}
		}
	}
	return nil
}
