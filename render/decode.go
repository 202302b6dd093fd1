package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// posError is a problem at a line of a file. It prints as "file:line: msg"
// so that editors and GitHub annotations can point at it.
type posError struct {
	File string
	Line int
	Msg  string
	Err  error
}

func (e *posError) Error() string {
	if e.Line <= 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

func (e *posError) Unwrap() error { return e.Err }

// sourced is a decoded object and the line of its file where it starts.
type sourced struct {
	obj  *unstructured.Unstructured
	line int
}

// decodeFile decodes every Kubernetes object in a manifest file: a JSON
// stream when the name ends in .json, else a YAML stream of documents.
// Empty documents are skipped. strict refuses duplicate YAML keys.
func decodeFile(name string, data []byte, strict bool) ([]sourced, error) {
	if strings.EqualFold(path.Ext(name), ".json") {
		return decodeJSONStream(name, data)
	}
	var out []sourced
	for _, doc := range splitYAMLDocuments(data) {
		o, err := decodeYAMLDocument(name, doc, strict)
		if err != nil {
			return nil, err
		}
		if o.obj != nil {
			out = append(out, o)
		}
	}
	return out, nil
}

// yamlDocument is one document of a YAML stream and the line of the file
// where its text starts.
type yamlDocument struct {
	data []byte
	line int
}

// splitYAMLDocuments cuts a stream at its "---" lines, the way kubectl's
// YAML reader does, keeping each document's first line so that errors
// from the per-document parser can be moved back to file lines.
func splitYAMLDocuments(data []byte) []yamlDocument {
	var docs []yamlDocument
	start, startLine, line := 0, 1, 1
	for off := 0; off < len(data); line++ {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
		}
		if isDocumentSeparator(data[off:next]) {
			docs = append(docs, yamlDocument{data[start:off], startLine})
			start, startLine = next, line+1
		}
		off = next
	}
	return append(docs, yamlDocument{data[start:], startLine})
}

func isDocumentSeparator(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	if !ok {
		return false
	}
	rest = bytes.TrimSpace(rest)
	return len(rest) == 0 || rest[0] == '#'
}

func decodeYAMLDocument(name string, doc yamlDocument, strict bool) (sourced, error) {
	toJSON := yaml.YAMLToJSON
	if strict {
		toJSON = yaml.YAMLToJSONStrict
	}
	j, err := toJSON(doc.data)
	if err != nil {
		line, msg := yamlErrorLine(err)
		return sourced{}, &posError{File: name, Line: doc.line + line - 1, Msg: msg, Err: err}
	}
	first := doc.line + leadingBlankLines(doc.data)
	return objectFromJSON(name, first, j)
}

var yamlLineRE = regexp.MustCompile(`line (\d+): `)

// yamlErrorLine finds the document line a YAML parser error names and
// the message without the parser's own prefixes.
func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	m := yamlLineRE.FindStringSubmatchIndex(msg)
	if m == nil {
		return 1, strings.TrimPrefix(msg, "error converting YAML to JSON: ")
	}
	n, _ := strconv.Atoi(msg[m[2]:m[3]])
	return max(n, 1), strings.TrimSpace(msg[m[1]:])
}

// leadingBlankLines counts the blank and comment lines before a
// document's content, so that an object's line is where it starts.
func leadingBlankLines(data []byte) int {
	n := 0
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] != '#' {
			break
		}
		n++
		data = rest
	}
	return n
}

func decodeJSONStream(name string, data []byte) ([]sourced, error) {
	var out []sourced
	lines := &lineCounter{data: data, line: 1}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		start := dec.InputOffset()
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			off := start
			var se *json.SyntaxError
			if errors.As(err, &se) {
				off = se.Offset
			}
			return nil, &posError{File: name, Line: lines.at(off), Msg: err.Error(), Err: err}
		}
		// InputOffset was the end of the previous value; the object starts
		// after the whitespace that follows it.
		rest := data[min(int(start), len(data)):]
		skipped := len(rest) - len(bytes.TrimLeft(rest, " \t\r\n"))
		o, err := objectFromJSON(name, lines.at(start+int64(skipped)), raw)
		if err != nil {
			return nil, err
		}
		if o.obj != nil {
			out = append(out, o)
		}
	}
}

// lineCounter finds the lines of increasing offsets in one pass over the
// data, so that a stream of many small values costs linear time.
type lineCounter struct {
	data []byte
	off  int64
	line int
}

// at is the 1-based line of an offset; offsets may not decrease.
func (c *lineCounter) at(off int64) int {
	off = min(max(off, c.off), int64(len(c.data)))
	c.line += bytes.Count(c.data[c.off:off], []byte("\n"))
	c.off = off
	return c.line
}

// objectFromJSON checks that a document is a Kubernetes object: a map with
// apiVersion, kind and metadata.name. A null document is no object and no
// error.
func objectFromJSON(name string, line int, j []byte) (sourced, error) {
	var v any
	if err := utiljson.Unmarshal(j, &v); err != nil {
		return sourced{}, &posError{File: name, Line: line, Msg: err.Error(), Err: err}
	}
	if v == nil {
		return sourced{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return sourced{}, &posError{File: name, Line: line, Msg: "not a Kubernetes object (a YAML or JSON map)"}
	}
	o := &unstructured.Unstructured{Object: m}
	if err := checkIdentity(o); err != nil {
		return sourced{}, &posError{File: name, Line: line, Msg: err.Error(), Err: err}
	}
	return sourced{obj: o, line: line}, nil
}

// checkIdentity requires what every manifest needs to be applied.
func checkIdentity(o *unstructured.Unstructured) error {
	for _, f := range [][]string{{"apiVersion"}, {"kind"}, {"metadata", "name"}} {
		s, found, err := unstructured.NestedString(o.Object, f...)
		if err != nil || !found || s == "" {
			return fmt.Errorf("object has no %s", strings.Join(f, "."))
		}
	}
	if _, _, err := unstructured.NestedStringMap(o.Object, "metadata", "labels"); err != nil {
		return fmt.Errorf("metadata.labels: %w", err)
	}
	if _, _, err := unstructured.NestedStringMap(o.Object, "metadata", "annotations"); err != nil {
		return fmt.Errorf("metadata.annotations: %w", err)
	}
	return nil
}
