package gitsource

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// FetchTooLargeError reports a fetch stopped because the remote sent, or
// announced, more than Options.MaxFetchSize. Nothing of it is kept: a
// clone leaves no cache, a fetch moves no ref.
type FetchTooLargeError struct {
	// Limit is the cap, in bytes.
	Limit int64
	// Read is how many bytes were read before the fetch stopped.
	Read int64
	// Announced is the Content-Length of the response refused before its
	// body was read; 0 when the fetch stopped while reading.
	Announced int64
}

func (e *FetchTooLargeError) Error() string {
	if e.Announced > 0 {
		return fmt.Sprintf("fetch larger than the limit of %s: the server announced %s more after %s read",
			byteSize(e.Limit), byteSize(e.Announced), byteSize(e.Read))
	}
	return fmt.Sprintf("fetch larger than the limit of %s: stopped after reading %s", byteSize(e.Limit), byteSize(e.Read))
}

// byteSize prints n in the largest binary unit that keeps it readable.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 3; m /= unit {
		div *= unit
		exp++
	}
	s := fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGT"[exp])
	if n%div == 0 {
		s = fmt.Sprintf("%d %ciB", n/div, "KMGT"[exp])
	}
	return s
}

// fetchBudget counts the bytes one fetch reads over HTTP(S). go-git has
// no per-fetch cap, and its transports are global: the budget travels in
// the context go-git puts on each request.
type fetchBudget struct {
	limit    int64
	read     atomic.Int64
	exceeded atomic.Pointer[FetchTooLargeError]
}

type budgetKey struct{}

func withFetchBudget(ctx context.Context, limit int64) (context.Context, *fetchBudget) {
	if limit <= 0 {
		return ctx, nil
	}
	b := &fetchBudget{limit: limit}
	return context.WithValue(ctx, budgetKey{}, b), b
}

// err is the FetchTooLargeError of a fetch that went over, else nil. go-git
// may reword or drop the body reader's error; the budget remembers.
func (b *fetchBudget) err() error {
	if b == nil {
		return nil
	}
	if e := b.exceeded.Load(); e != nil {
		return e
	}
	return nil
}

func (b *fetchBudget) stop(announced int64) *FetchTooLargeError {
	e := &FetchTooLargeError{Limit: b.limit, Read: b.read.Load(), Announced: announced}
	b.exceeded.CompareAndSwap(nil, e)
	return b.exceeded.Load()
}

// cappedTransport hands each response body of a request with a budget to
// a cappedBody; requests without one pass through untouched.
type cappedTransport struct{ next http.RoundTripper }

func (t cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(req)
	b, _ := req.Context().Value(budgetKey{}).(*fetchBudget)
	if err != nil || b == nil {
		return res, err
	}
	if res.ContentLength > 0 && b.read.Load()+res.ContentLength > b.limit {
		res.Body.Close()
		return nil, b.stop(res.ContentLength)
	}
	res.Body = &cappedBody{rc: res.Body, b: b}
	return res, nil
}

// cappedBody fails the read that takes its fetch past the limit, so the
// pack is never held or written whole.
type cappedBody struct {
	rc io.ReadCloser
	b  *fetchBudget
}

func (c *cappedBody) Read(p []byte) (int, error) {
	if e := c.b.exceeded.Load(); e != nil {
		return 0, e
	}
	n, err := c.rc.Read(p)
	if c.b.read.Add(int64(n)) > c.b.limit {
		return 0, c.b.stop(0)
	}
	return n, err
}

func (c *cappedBody) Close() error { return c.rc.Close() }

// The HTTP(S) transports are replaced once, before any fetch can run
// (go-git's protocol table is a plain map). They behave as go-git's own
// (net/http's default transport, proxies from the environment) and count
// only the fetches that carry a budget.
func init() {
	c := githttp.NewClient(&http.Client{Transport: cappedTransport{next: http.DefaultTransport}})
	client.InstallProtocol("http", c)
	client.InstallProtocol("https", c)
}
