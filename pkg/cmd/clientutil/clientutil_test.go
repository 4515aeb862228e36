package clientutil

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

type blocking struct{ release chan struct{} }

func (b blocking) RoundTrip(*http.Request) (*http.Response, error) {
	<-b.release
	return nil, errors.New("released")
}

// TestRoundTripEndsWithItsContext: a RoundTrip that blocks (a credential plugin that never
// answers) returns when the request's deadline passes, with an error that wraps it.
func TestRoundTripEndsWithItsContext(t *testing.T) {
	b := blocking{release: make(chan struct{})}
	defer close(b.release)
	rt := &contextBound{next: b, exec: true}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://127.0.0.1:1/api", nil)
	began := time.Now()
	_, err := rt.RoundTrip(req)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(began) > 5*time.Second {
		t.Errorf("err %v after %s", err, time.Since(began))
	}
}
