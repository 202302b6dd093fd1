package github

import (
	"errors"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// RetryAt says when GitHub will take a request again after err, a rate
// limit refusal anywhere in an error chain: the primary limit's reset, a
// secondary limit's Retry-After, or those headers on a plain 403 or 429.
// It is false for any other error, and for a limit that gives no time.
func RetryAt(err error) (time.Time, bool) {
	var (
		limit *gh.RateLimitError
		abuse *gh.AbuseRateLimitError
		resp  *gh.ErrorResponse
	)
	switch {
	case errors.As(err, &limit):
		return limit.Rate.Reset.Time, !limit.Rate.Reset.Time.IsZero()
	case errors.As(err, &abuse):
		if abuse.RetryAfter == nil {
			return time.Time{}, false
		}
		return time.Now().Add(*abuse.RetryAfter), true
	case errors.As(err, &resp) && resp.Response != nil:
		t, ok := rateLimited(resp.Response)
		return t, ok && !t.IsZero()
	}
	return time.Time{}, false
}
