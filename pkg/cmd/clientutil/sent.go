package clientutil

import (
	"net/http"
	"sync/atomic"
)

// sentKey marks, in a request's context, the flag that the transport below the exec credential
// plugin sets once the plugin has answered and the request goes on to the API server.
type sentKey struct{}

// markSent is the innermost wrapper (rest.Config.WrapTransport, which client-go puts inside
// the exec plugin's round tripper): reached only once credentials were obtained.
type markSent struct{ next http.RoundTripper }

func (m *markSent) RoundTrip(req *http.Request) (*http.Response, error) {
	if f, ok := req.Context().Value(sentKey{}).(*atomic.Bool); ok {
		f.Store(true)
	}
	return m.next.RoundTrip(req)
}

func (m *markSent) WrappedRoundTripper() http.RoundTripper { return m.next }
