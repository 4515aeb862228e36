package receipt

import (
	"errors"
	"strings"
	"testing"
)

func TestSummaryRoundTrip(t *testing.T) {
	r := validReceipt()
	r.Failed = append(r.Failed, Failure{Case: "d", Class: ClassModel, Reason: "wrong answer"})
	s := Summarize(r)
	s.Receipt = "s3://bucket/demo/shard-0/pod-a.receipt.json"
	b, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "\n") {
		t.Errorf("summary is not one line: %s", b)
	}
	got, err := Decode("pod/p", string(b)+"\n")
	if err != nil {
		t.Fatal(err)
	}
	if got.Completed != 2 || got.Failed.Model != 1 || got.Failed.Infrastructure != 1 || got.Reason != "timeout" || got.Evaluated() != 3 || got.Receipt != s.Receipt {
		t.Fatalf("decoded %+v", got)
	}
}

func TestEncodeRefusesMoreThan4KiB(t *testing.T) {
	s := Summarize(validReceipt())
	s.Reason = strings.Repeat("x", MaxTerminationMessage)
	if _, err := Encode(s); err == nil || !strings.Contains(err.Error(), "at most 4096") {
		t.Fatalf("want a size error, got %v", err)
	}
}

// kubeletTail is what the kubelet keeps of a termination-log file: its last 4,096 bytes
// (pkg/util/tail.ReadAtMost with MaxContainerTerminationMessageLength, Kubernetes v1.37.2).
func kubeletTail(b []byte) string {
	if len(b) > MaxTerminationMessage {
		b = b[len(b)-MaxTerminationMessage:]
	}
	return string(b)
}

func TestDecodeCutMessages(t *testing.T) {
	s := Summarize(validReceipt())
	full, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	// A worker that wrote a longer summary than the kubelet keeps (outputs padded past 4 KiB):
	// the kubelet keeps the tail, which starts mid-JSON.
	long := Summarize(validReceipt())
	long.Outputs = []string{strings.Repeat("s3://bucket/x/", 400)}
	longJSON := []byte(`{"apiVersion":"indexed.kubectl.io/v1alpha1","shardID":"shard-0","outputs":["` + long.Outputs[0] + `"],"kind":"ShardReceiptSummary"}`)
	cases := []struct {
		name, msg string
		truncated bool
		want      string
	}{
		{"kubelet kept the last 4 KiB", kubeletTail(longJSON), true, "beginning is missing"},
		{"end cut (pod budget)", string(full[:len(full)-20]), true, "ends before"},
		{"cut inside a string", string(full[:60]), true, "ends before"},
		{"exactly 4 KiB and broken", `{"kind":"ShardReceiptSummary",` + strings.Repeat(" ", MaxTerminationMessage-31) + `x`, true, "probably cut"},
		{"malformed", `{"kind":"ShardReceiptSummary","apiVersion":"indexed.kubectl.io/v1alpha1","bogus":1}`, false, `unknown field "bogus"`},
		{"invalid counts", strings.Replace(string(full), `"completed":2`, `"completed":-1`, 1), false, "negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("pod/p", tc.msg)
			var re *Error
			if !errors.As(err, &re) {
				t.Fatalf("want *Error, got %v", err)
			}
			if re.Truncated != tc.truncated || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("truncated %v (want %v), error %q (want %q)", re.Truncated, tc.truncated, err, tc.want)
			}
		})
	}
}

func TestDecodeNotASummary(t *testing.T) {
	for _, msg := range []string{"", "   ", "done\n", `{"level":"error","msg":"oom"}`, "Traceback (most recent call last):\n..."} {
		if _, err := Decode("pod/p", msg); !errors.Is(err, ErrNotSummary) {
			t.Errorf("%q: want ErrNotSummary, got %v", msg, err)
		}
	}
}
