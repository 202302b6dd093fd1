package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	gh "github.com/google/go-github/v62/github"

	"github.com/olmops/olmops/gitsource"
)

// ErrRateLimited reports a request GitHub refused for a rate limit; the
// error's text says when to retry. Errors that wrap it wrap
// gitsource.ErrForge too.
var ErrRateLimited = errors.New("GitHub rate limit exceeded")

// apiError is a failed request. Its text is written here from the parts
// that help (request, status, GitHub's message, what to do) rather than
// go-github's; its chain holds gitsource.ErrForge, ErrRateLimited where it
// applies, and go-github's error for callers that want the details.
type apiError struct {
	msg    string
	causes []error
}

func (e *apiError) Error() string   { return e.msg }
func (e *apiError) Unwrap() []error { return e.causes }

// fail turns the error of request method path into an apiError.
func fail(method, path string, err error) error {
	msg, limited := describe(err)
	causes := []error{gitsource.ErrForge, err}
	if limited {
		causes = append(causes, ErrRateLimited)
	}
	// GitHub's message and details are a server's words: a proxy or a
	// fake may echo the request's Authorization header or a token.
	msg = gitsource.RedactURLs(fmt.Sprintf("%v: github %s %s: %s", gitsource.ErrForge, method, path, msg))
	return &apiError{msg: msg, causes: causes}
}

// describe says what went wrong in err, and whether it is a rate limit.
func describe(err error) (string, bool) {
	var (
		limit *gh.RateLimitError
		abuse *gh.AbuseRateLimitError
		resp  *gh.ErrorResponse
	)
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err.Error(), false
	case errors.As(err, &limit):
		return fmt.Sprintf("%v (%s); retry %s", ErrRateLimited, limitMessage(limit.Message), retryAt(limit.Rate.Reset.Time)), true
	case errors.As(err, &abuse):
		when := "in a few minutes"
		if abuse.RetryAfter != nil {
			when = retryAt(time.Now().Add(*abuse.RetryAfter))
		}
		return fmt.Sprintf("%v (%s); retry %s", ErrRateLimited, limitMessage(abuse.Message), when), true
	case errors.As(err, &resp) && resp.Response != nil:
		return describeResponse(resp)
	default:
		return err.Error(), false
	}
}

// limitMessage is GitHub's message about a rate limit, or a short one
// when go-github refused the request itself because an earlier answer
// said the limit holds: its own message then is long and repeats the
// time.
func limitMessage(msg string) string {
	if strings.Contains(msg, "not making remote request") {
		return "an earlier answer said it holds; not asked again"
	}
	return msg
}

// describeResponse words an error response; go-github leaves a 429, and a
// 403 with Retry-After but no documentation link, as plain responses.
func describeResponse(resp *gh.ErrorResponse) (string, bool) {
	code := resp.Response.StatusCode
	text := strconv.Itoa(code) + " " + message(resp)
	if reset, ok := rateLimited(resp.Response); ok {
		return fmt.Sprintf("%v (%s); retry %s", ErrRateLimited, text, retryAt(reset)), true
	}
	switch code {
	case http.StatusUnauthorized:
		return text + "; check the token", false
	case http.StatusForbidden:
		return text + "; check the token and its permissions (pull requests, issues and commit statuses: write)", false
	case http.StatusNotFound:
		return text + "; check the owner and repository, and that the token can see them", false
	}
	return text, false
}

// message is GitHub's message with the details of a validation failure.
func message(resp *gh.ErrorResponse) string {
	msg := resp.Message
	if msg == "" {
		msg = http.StatusText(resp.Response.StatusCode)
	}
	var details []string
	for _, e := range resp.Errors {
		switch {
		case e.Message != "":
			details = append(details, e.Message)
		default:
			details = append(details, strings.TrimSpace(e.Resource+" "+e.Field+" "+e.Code))
		}
	}
	if len(details) > 0 {
		msg += ": " + strings.Join(details, "; ")
	}
	return msg
}

// rateLimited says whether r is a rate-limit refusal (403 or 429 with
// X-RateLimit-Remaining: 0 or Retry-After), and when to retry.
func rateLimited(r *http.Response) (time.Time, bool) {
	if r.StatusCode != http.StatusForbidden && r.StatusCode != http.StatusTooManyRequests {
		return time.Time{}, false
	}
	if s := r.Header.Get("Retry-After"); s != "" {
		secs, _ := strconv.Atoi(s)
		return time.Now().Add(time.Duration(secs) * time.Second), true
	}
	if r.Header.Get("X-RateLimit-Remaining") != "0" {
		return time.Time{}, r.StatusCode == http.StatusTooManyRequests
	}
	secs, err := strconv.ParseInt(r.Header.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil {
		return time.Time{}, true
	}
	return time.Unix(secs, 0), true
}

// retryAt words when to retry.
func retryAt(t time.Time) string {
	if t.IsZero() {
		return "later"
	}
	wait := max(time.Until(t).Round(time.Second), 0)
	return fmt.Sprintf("after %s (in %s)", t.UTC().Format(time.RFC3339), wait)
}
