package indexstatus

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestCaptureAndOfflineTime: the capture time is the newest timestamp in the Job and its pods
// (a deletion timestamp, which lies ahead by the grace period, is not one); --now wins over
// it, and the wall clock is used only when the objects carry no time.
func TestCaptureAndOfflineTime(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: t0.Add(d)} }
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: *at(0), DeletionTimestamp: at(time.Hour)},
		Status: batchv1.JobStatus{StartTime: at(time.Second)}}
	if got := CaptureTime(job, nil); !got.Equal(t0.Add(time.Second)) {
		t.Errorf("job only: %v", got)
	}
	pod := corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: *at(time.Minute)}}}}}}
	if got := CaptureTime(job, []corev1.Pod{pod}); !got.Equal(t0.Add(time.Minute)) || !PodTime(&pod).Equal(got) {
		t.Errorf("with a pod: %v", got)
	}
	wall, given := t0.Add(48*time.Hour), t0.Add(2*time.Hour)
	for _, tc := range []struct {
		given, captured, want time.Time
		fromWall              bool
	}{
		{given, t0, given, false},
		{time.Time{}, t0, t0, false},
		{time.Time{}, time.Time{}, wall, true},
	} {
		if got, w, err := OfflineTime(tc.given, tc.captured, wall); err != nil || !got.Equal(tc.want) || w != tc.fromWall {
			t.Errorf("OfflineTime(%v, %v): %v %v %v", tc.given, tc.captured, got, w, err)
		}
	}
	if _, _, err := OfflineTime(t0, given, wall); err == nil || !strings.Contains(err.Error(), "is before 2026-03-01T14:00:00Z, the newest time written in the objects") {
		t.Errorf("--now before the capture time: %v", err)
	}
	if _, err := ParseTime("2026-03-01T12:00:00Z"); err != nil {
		t.Error(err)
	}
	if _, err := ParseTime("yesterday"); err == nil || !strings.Contains(err.Error(), `"yesterday" is not an RFC 3339 time`) {
		t.Errorf("ParseTime: %v", err)
	}
}
