package pushhook

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// MaxTokenBytes bounds what the Handler holds of a body at any moment: one
// JSON value it keeps (a ref, a repository object) or skips (a string of a
// commit message), or one run of whitespace. The body itself streams
// through the HMAC and is never held, so an unsigned body costs at most
// this much memory however long it is.
const MaxTokenBytes = 1 << 20

var errTokenTooLarge = refuse(http.StatusRequestEntityTooLarge,
	fmt.Sprintf("push payload holds a JSON value or whitespace run larger than %d bytes", MaxTokenBytes))

// cappedReader feeds a json.Decoder and refuses to read on once the
// decoder holds more than MaxTokenBytes it has not consumed.
type cappedReader struct {
	r    io.Reader
	dec  *json.Decoder
	read int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.read-c.dec.InputOffset() > MaxTokenBytes {
		return 0, errTokenTooLarge
	}
	n, err := c.r.Read(p)
	c.read += int64(n)
	return n, err
}

// scanPush reads a push payload as a stream of JSON tokens, keeping the
// fields pushPayload names (matched case-insensitively, the last of
// duplicates winning, as json.Unmarshal does) and skipping the rest.
func scanPush(r io.Reader) (pushPayload, error) {
	cr := &cappedReader{r: r}
	dec := json.NewDecoder(cr)
	cr.dec = dec
	var pl pushPayload
	if err := expectDelim(dec, '{'); err != nil {
		return pl, err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return pl, jsonRefusal(err)
		}
		key, _ := t.(string)
		if err := scanField(dec, key, &pl); err != nil {
			return pl, err
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return pl, err
	}
	return pl, onlySpace(io.MultiReader(dec.Buffered(), r))
}

// scanField decodes the value of key into pl, or skips it.
func scanField(dec *json.Decoder, key string, pl *pushPayload) error {
	var v any
	switch strings.ToLower(key) {
	case "ref":
		v = &pl.Ref
	case "after":
		v = &pl.After
	case "deleted":
		v = &pl.Deleted
	case "repository":
		v = &pl.Repository
	case "project":
		v = &pl.Project
	case "sha":
		v = &pl.SHA
	case "context":
		v = &pl.Context
	case "state":
		v = &pl.State
	default:
		return skipValue(dec)
	}
	if err := dec.Decode(v); err != nil {
		// Decode's own offsets do not count from the stream's start; the
		// decoder still points at the value after a failure.
		var rf *refusal
		if errors.As(err, &rf) {
			return rf
		}
		return refuse(http.StatusBadRequest, fmt.Sprintf("malformed push payload: the value of %q at byte offset %d: %v", key, dec.InputOffset(), err))
	}
	return nil
}

// skipValue reads past one JSON value token by token, so that a large
// array of commits is never held whole.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return jsonRefusal(err)
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return jsonRefusal(err)
	}
	if t != want {
		return refuse(http.StatusBadRequest, fmt.Sprintf("malformed push payload at byte offset %d: want %q", dec.InputOffset(), want))
	}
	return nil
}

// onlySpace reads r to its end and refuses anything but JSON whitespace,
// as json.Unmarshal refuses data after the value.
func onlySpace(r io.Reader) error {
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		for _, c := range buf[:n] {
			if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
				return refuse(http.StatusBadRequest, "malformed push payload: data after the JSON object")
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// scanForm finds the payload field of a form-encoded body, payload=<URL-
// encoded JSON>, and scans it, hashing the decoded payload into payloadMAC.
// seen reports whether a payload field was found (the first one counts, as
// url.Values.Get has it).
func scanForm(r io.Reader, payloadMAC io.Writer) (pl pushPayload, seen bool, err error) {
	br := bufio.NewReader(r)
	for {
		key, more, err := formKey(br)
		if err != nil {
			return pl, seen, err
		}
		if key == "" && !more {
			break
		}
		value := &formValue{r: br}
		if key == "payload" && !seen {
			seen = true
			tee := io.TeeReader(value, payloadMAC)
			pl, err = scanPush(tee)
			if _, derr := io.Copy(io.Discard, tee); err == nil {
				err = derr
			}
			if err != nil {
				return pl, seen, err
			}
			continue
		}
		if _, err := io.Copy(io.Discard, value); err != nil {
			return pl, seen, err
		}
	}
	if !seen {
		return pl, seen, refuse(http.StatusBadRequest, "form-encoded body has no payload field")
	}
	return pl, seen, nil
}

// maxFormKey bounds a form field's name: the only one read is "payload".
const maxFormKey = 256

// formKey reads a field name up to its '='; more is false at the end of
// the body.
func formKey(br *bufio.Reader) (key string, more bool, err error) {
	var b strings.Builder
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return b.String(), b.Len() > 0, nil
		}
		if err != nil {
			return "", false, err
		}
		if c == '=' || c == '&' {
			if c == '&' {
				// A field without a value: put the separator back so that
				// the empty value ends at once.
				_ = br.UnreadByte()
			}
			k, uerr := url.QueryUnescape(b.String())
			if uerr != nil {
				return "", false, refuse(http.StatusBadRequest, "form-encoded body: "+uerr.Error())
			}
			return k, true, nil
		}
		if b.Len() >= maxFormKey {
			return "", false, refuse(http.StatusBadRequest, fmt.Sprintf("form-encoded body: a field name longer than %d bytes", maxFormKey))
		}
		b.WriteByte(c)
	}
}

// formValue decodes one URL-encoded form value as it is read, up to the
// next '&' (which it consumes) or the end of the body.
type formValue struct {
	r    *bufio.Reader
	done bool
}

func (v *formValue) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && !v.done {
		c, err := v.r.ReadByte()
		if err == io.EOF || c == '&' {
			v.done = true
			break
		}
		if err != nil {
			return n, err
		}
		switch c {
		case '+':
			c = ' '
		case '%':
			if c, err = v.escaped(); err != nil {
				return n, err
			}
		}
		p[n] = c
		n++
	}
	if n == 0 && v.done {
		return 0, io.EOF
	}
	return n, nil
}

// escaped reads the two hex digits after a '%'.
func (v *formValue) escaped() (byte, error) {
	var hex [2]byte
	for i := range hex {
		c, err := v.r.ReadByte()
		if err != nil {
			return 0, refuse(http.StatusBadRequest, "form-encoded body: truncated %-escape")
		}
		hex[i] = c
	}
	s, err := url.QueryUnescape("%" + string(hex[:]))
	if err != nil {
		return 0, refuse(http.StatusBadRequest, "form-encoded body: "+err.Error())
	}
	return s[0], nil
}
