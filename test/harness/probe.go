package harness

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
)

const probeNamespace = "harness-probe"

// probe runs a one-pod Job through scheduler, kwok and the Job controller, proving the whole
// chain works before any test starts.
func (c *Cluster) probe(ctx context.Context) error {
	if err := c.CreateNamespace(ctx, probeNamespace, nil); err != nil {
		return err
	}
	one := int32(1)
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: probeNamespace},
		Spec: batchv1.JobSpec{
			Completions:    &one,
			Parallelism:    &one,
			CompletionMode: ptr.To(batchv1.IndexedCompletion),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{AnnotationRunTime: "0s"}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "probe", Image: "probe"}},
				},
			},
		},
	}
	if _, err := c.Client.BatchV1().Jobs(probeNamespace).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating probe Job: %w", err)
	}
	var last *batchv1.Job
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	err := wait.PollUntilContextCancel(wctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if err := c.Healthy(); err != nil {
			return false, err
		}
		j, err := c.Client.BatchV1().Jobs(probeNamespace).Get(ctx, "probe", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = j
		for _, cond := range j.Status.Conditions {
			if cond.Type == batchv1.JobComplete && cond.Status == corev1.ConditionTrue {
				return true, nil
			}
			if cond.Type == batchv1.JobFailed && cond.Status == corev1.ConditionTrue {
				return false, fmt.Errorf("probe Job failed: %s: %s", cond.Reason, cond.Message)
			}
		}
		return false, nil
	})
	if err != nil {
		status := "never seen"
		if last != nil {
			status = fmt.Sprintf("%+v", last.Status)
		}
		return fmt.Errorf("probe Job did not complete (scheduler, kwok or Job controller not working): %w; last status: %s", err, status)
	}
	bg := metav1.DeletePropagationBackground
	return c.Client.CoreV1().Namespaces().Delete(ctx, probeNamespace, metav1.DeleteOptions{PropagationPolicy: &bg})
}
