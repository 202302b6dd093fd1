package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Documentation URLs GitHub puts in its error bodies.
const (
	docREST     = "https://docs.github.com/rest"
	docPulls    = "https://docs.github.com/rest/pulls/pulls"
	docLabels   = "https://docs.github.com/rest/issues/labels"
	docComments = "https://docs.github.com/rest/issues/comments"
	docStatuses = "https://docs.github.com/rest/commits/statuses"
	docRate     = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
)

// errorBody is GitHub's error document.
type errorBody struct {
	Message          string       `json:"message"`
	Errors           []fieldError `json:"errors,omitempty"`
	DocumentationURL string       `json:"documentation_url"`
	Status           string       `json:"status"`
}

// fieldError is one entry of a 422's errors list.
type fieldError struct {
	Resource string `json:"resource"`
	Field    string `json:"field,omitempty"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(status)
	w.Write(data)
}

func writeError(w http.ResponseWriter, status int, msg, doc string, errs ...fieldError) {
	writeJSON(w, status, errorBody{Message: msg, Errors: errs, DocumentationURL: doc, Status: strconv.Itoa(status)})
}

func notFound(w http.ResponseWriter) {
	writeError(w, http.StatusNotFound, "Not Found", docREST)
}

// invalid answers 422 "Validation Failed" with errs, GitHub's answer to a
// well-formed request it will not carry out.
func invalid(w http.ResponseWriter, doc string, errs ...fieldError) {
	writeError(w, http.StatusUnprocessableEntity, "Validation Failed", doc, errs...)
}

// decode reads r's JSON body into v, or answers 400 as GitHub does.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON", docREST)
		return false
	}
	return true
}

// timestamp formats t as GitHub does: UTC, to the second.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// optTimestamp is timestamp, or JSON null for the zero time.
func optTimestamp(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := timestamp(t)
	return &s
}

// optString is s, or JSON null for "", as GitHub renders an unset body,
// description or URL.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Page sizes GitHub applies.
const (
	defaultPerPage = 30
	maxPerPage     = 100
)

// paginate picks the page r asks for out of total items, sets the Link
// header GitHub sends (next, last, first, prev), and returns the bounds of
// the page.
func (s *Server) paginate(w http.ResponseWriter, r *http.Request, total int) (lo, hi int) {
	q := r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per < 1 {
		per = defaultPerPage
	}
	per = min(per, maxPerPage)
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	last := max(1, (total+per-1)/per)
	link := func(p int, rel string) string {
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(per))
		return fmt.Sprintf(`<%s%s?%s>; rel="%s"`, s.URL, r.URL.Path, q.Encode(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(min(page-1, last), "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo = min((page-1)*per, total)
	return lo, min(lo+per, total)
}
