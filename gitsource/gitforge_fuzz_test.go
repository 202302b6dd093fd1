package gitsource

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzParseNote feeds notes anyone with push access could write: parsing
// never panics, and a note SetStatus writes reads back as written.
func FuzzParseNote(f *testing.F) {
	f.Add([]byte(`{"statuses":[{"context":"olmops/prod","state":"success","description":"0.9.2 -> 0.9.4"}]}`), "ci", "é<&>")
	f.Add([]byte(`looks good to me`), "a", "")
	f.Add([]byte(`{"statuses":null}`), "b", "\xff")
	f.Fuzz(func(t *testing.T, data []byte, context, desc string) {
		doc, err := parseNote(data)
		if err != nil {
			return
		}
		st, err := checkStatus(Status{Context: context, State: StatusPending, Description: desc})
		if err != nil {
			return
		}
		statuses, _ := upsertStatus(doc.Statuses, st)
		out, err := encodeNote(noteDoc{Statuses: statuses})
		if err != nil {
			t.Fatal(err)
		}
		back, err := parseNote(out)
		if err != nil {
			t.Fatalf("parse what encodeNote wrote: %v\n%s", err, out)
		}
		// Invalid UTF-8 in statuses read from the note is turned into
		// U+FFFD on the way; compare what olmops itself set.
		if _, changed := upsertStatus(back.Statuses, st); changed {
			t.Errorf("status %+v did not survive a round trip: %s", st, out)
		}
	})
}

// FuzzRecordMessage checks that a proposal's title and body come back
// from its record's message as given.
func FuzzRecordMessage(f *testing.F) {
	f.Add("etcd 0.9.2 -> 0.9.4", "Upgrade path:\n- 0.9.3\n")
	f.Add("t", "")
	f.Add("t", "\n\nleading blank lines")
	f.Fuzz(func(t *testing.T, title, body string) {
		if strings.TrimSpace(title) == "" || strings.ContainsAny(title, "\r\n") {
			return
		}
		rec := &record{title: title, body: body}
		gotTitle, gotBody := splitMessage(rec.message())
		if !reflect.DeepEqual([]string{gotTitle, gotBody}, []string{title, body}) {
			t.Errorf("split(%q) = %q, %q; want %q, %q", rec.message(), gotTitle, gotBody, title, body)
		}
	})
}
