package githubtest

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// setLabels answers POST (add) and PUT (replace)
// /repos/{owner}/{repo}/issues/{n}/labels with the labels the issue then
// has.
func (s *Server) setLabels(w http.ResponseWriter, r *http.Request, p *PR, replace bool) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON", docREST)
		return
	}
	names, err := parseLabels(data)
	if err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON", docREST)
		return
	}
	if (!replace && len(names) == 0) || slices.Contains(names, "") {
		invalid(w, docLabels, fieldError{Resource: "Label", Field: "name", Code: "invalid"})
		return
	}
	if replace {
		p.Labels = nil
	}
	for _, name := range names {
		if !slices.ContainsFunc(p.Labels, func(l string) bool { return strings.EqualFold(l, name) }) {
			p.Labels = append(p.Labels, s.label(name).Name)
		}
	}
	p.UpdatedAt = time.Now()
	writeJSON(w, http.StatusOK, s.labelsJSON(p.Labels))
}

// parseLabels reads the label bodies GitHub accepts: a list of names or of
// {"name": ...} objects, bare or under "labels".
func parseLabels(data []byte) ([]string, error) {
	var wrapped struct {
		Labels json.RawMessage `json:"labels"`
	}
	if err := json.Unmarshal(data, &wrapped); err == nil {
		if wrapped.Labels == nil {
			return nil, errors.New("no labels")
		}
		data = wrapped.Labels
	}
	var plain []string
	if err := json.Unmarshal(data, &plain); err == nil {
		return plain, nil
	}
	var objs []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(data, &objs); err != nil {
		return nil, err
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.Name)
	}
	return names, nil
}

// label is the repository's label name, created (as GitHub does) on first
// use: names are compared ignoring case and keep their first spelling.
func (s *Server) label(name string) repoLabel {
	key := strings.ToLower(name)
	l, ok := s.labels[key]
	if !ok {
		l = repoLabel{ID: s.newID(), Name: name}
		s.labels[key] = l
	}
	return l
}

// listComments answers GET /repos/{owner}/{repo}/issues/{n}/comments with
// every comment in one page, oldest first; only bodies are kept.
func (s *Server) listComments(w http.ResponseWriter, p *PR) {
	out := []map[string]any{}
	for i, body := range p.Comments {
		out = append(out, map[string]any{"id": i + 1, "body": body, "user": s.viewer()})
	}
	writeJSON(w, http.StatusOK, out)
}

// createComment answers POST /repos/{owner}/{repo}/issues/{n}/comments.
func (s *Server) createComment(w http.ResponseWriter, r *http.Request, p *PR) {
	var in struct {
		Body string `json:"body"`
	}
	if !decode(w, r, &in) {
		return
	}
	if in.Body == "" {
		invalid(w, docComments, fieldError{Resource: "IssueComment", Field: "body", Code: "missing_field"})
		return
	}
	now := time.Now()
	p.Comments = append(p.Comments, in.Body)
	p.UpdatedAt = now
	id := s.newID()
	n := strconv.Itoa(p.Number)
	writeJSON(w, http.StatusCreated, map[string]any{
		"id": id, "node_id": "IC_" + strconv.FormatInt(id, 10),
		"url":      s.apiURL("/issues/comments/" + strconv.FormatInt(id, 10)),
		"html_url": s.webURL("/pull/" + n + "#issuecomment-" + strconv.FormatInt(id, 10)),
		"body":     in.Body, "user": s.viewer(), "issue_url": s.apiURL("/issues/" + n),
		"created_at": timestamp(now), "updated_at": timestamp(now), "author_association": "MEMBER",
	})
}
