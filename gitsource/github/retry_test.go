package github

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	gh "github.com/google/go-github/v62/github"
)

func TestRetryAt(t *testing.T) {
	reset := time.Unix(1_900_000_000, 0)
	wait := 30 * time.Second
	tests := []struct {
		name string
		err  error
		want time.Time // zero: not a limit with a time
		near bool      // want is about now+wait
	}{
		{name: "primary limit", err: fail("POST", "/pulls", &gh.RateLimitError{Rate: gh.Rate{Reset: gh.Timestamp{Time: reset}}}), want: reset},
		{name: "wrapped again", err: fmt.Errorf("propose: %w", fail("POST", "/pulls", &gh.RateLimitError{Rate: gh.Rate{Reset: gh.Timestamp{Time: reset}}})), want: reset},
		{name: "secondary limit", err: fail("POST", "/pulls", &gh.AbuseRateLimitError{RetryAfter: &wait}), near: true},
		{name: "429 with Retry-After", err: fail("GET", "/pulls", &gh.ErrorResponse{Response: &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"30"}}}}), near: true},
		{name: "secondary limit without a time", err: fail("POST", "/pulls", &gh.AbuseRateLimitError{})},
		{name: "403 without a limit", err: fail("GET", "/pulls", &gh.ErrorResponse{Response: &http.Response{StatusCode: 403, Header: http.Header{}}})},
		{name: "another error", err: errors.New("connection refused")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := RetryAt(tt.err)
			switch {
			case tt.near:
				if d := time.Until(got); !ok || d < wait-5*time.Second || d > wait {
					t.Errorf("RetryAt = %v, %v; want about now+%v", got, ok, wait)
				}
			case tt.want.IsZero():
				if ok {
					t.Errorf("RetryAt = %v, true; want false", got)
				}
			case !ok || !got.Equal(tt.want):
				t.Errorf("RetryAt = %v, %v; want %v", got, ok, tt.want)
			}
		})
	}
}
