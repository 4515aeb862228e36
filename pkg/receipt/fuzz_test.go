package receipt

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzParse: any input gives a receipt that passes its own validation and survives a
// round trip, or an *Error; never a panic.
func FuzzParse(f *testing.F) {
	b, _ := json.Marshal(validReceipt())
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte(`{"apiVersion":"indexed.kubectl.io/v1alpha1","kind":"ShardReceipt"}`))
	f.Add([]byte(`{"completed":[{"case":"a","repetition":1e99}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse("f", data)
		if err != nil {
			var re *Error
			if !errors.As(err, &re) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse("f", again); err != nil {
			t.Fatalf("a parsed receipt does not parse again: %v\n%s", err, again)
		}
	})
}

// FuzzDecode: any termination message is a summary, ErrNotSummary or an *Error.
func FuzzDecode(f *testing.F) {
	b, _ := Encode(Summarize(validReceipt()))
	f.Add(string(b))
	f.Add(string(b[10:]))
	f.Add(string(b[:len(b)-10]))
	f.Add("plain log line")
	f.Fuzz(func(t *testing.T, msg string) {
		s, err := Decode("f", msg)
		if err == nil {
			if s == nil || s.Completed < 0 {
				t.Fatalf("bad summary %+v", s)
			}
			return
		}
		var re *Error
		if !errors.Is(err, ErrNotSummary) && !errors.As(err, &re) {
			t.Fatalf("error of type %T: %v", err, err)
		}
	})
}
