//go:build !olmops_cli

package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/olmops/olmops/reconciler"
)

const healthWait = "etcd-system/etcd: applying etcdoperator.v0.10.0 (hop 1/1): Deployment etcd-operator: InProgress: Available: 0/1"

func TestWaitText(t *testing.T) {
	got := waitText(reconciler.Event{Reason: "HealthWait", Message: healthWait})
	if want := "waiting until healthy: " + healthWait; got != want {
		t.Errorf("waitText = %q, want %q", got, want)
	}
}

// On a terminal each health poll's verdict rewrites the wait line in
// place, no more than once every waitEvery; the events stay lines of
// their own. Off a terminal nothing but the events is written.
func TestApplyWaitLine(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := start
	verdict := func(why string) reconciler.Event {
		return reconciler.Event{Reason: "HealthWait", Message: "etcd-system/etcd: applying etcdoperator.v0.10.0 (hop 1/1): " + why}
	}
	run := func(line *statusLine) {
		events, waits := applyEvents(line), &waitLine{line: line, every: time.Second, now: func() time.Time { return clock }}
		events(reconciler.Event{Reason: "HopStarted", Message: "etcd-system/etcd: applying etcdoperator.v0.10.0 (hop 1/1)"})
		waits.show(verdict("Deployment etcd-operator: InProgress: Replicas: 0/1"))
		clock = clock.Add(300 * time.Millisecond)
		waits.show(verdict("Deployment etcd-operator: InProgress: Updated: 0/1")) // too soon: not shown
		clock = clock.Add(time.Second)
		waits.show(verdict("Deployment etcd-operator: InProgress: Available: 0/1"))
		events(reconciler.Event{Reason: "HopInstalled", Message: "etcd-system/etcd: etcdoperator.v0.10.0 installed and healthy (hop 1/1)"})
	}
	lines := "HopStarted: etcd-system/etcd: applying etcdoperator.v0.10.0 (hop 1/1)\n" +
		"HopInstalled: etcd-system/etcd: etcdoperator.v0.10.0 installed and healthy (hop 1/1)\n"

	var b bytes.Buffer
	run(&statusLine{w: &b, tty: true})
	want := "HopStarted: etcd-system/etcd: applying etcdoperator.v0.10.0 (hop 1/1)\n" +
		"\r\033[Kwaiting until healthy: etcd-system/etcd: applying etcdoperator.v0.10.0 (hop 1/1) …" +
		"\r\033[Kwaiting until healthy: etcd-system/etcd: applying etcdoperator.v0.10.0 (hop 1/1): Deployment etcd-operator: InProgress: Replicas: 0/1 …" +
		"\r\033[Kwaiting until healthy: etcd-system/etcd: applying etcdoperator.v0.10.0 (hop 1/1): Deployment etcd-operator: InProgress: Available: 0/1 …" +
		"\r\033[K" + lines[strings.Index(lines, "HopInstalled"):]
	if b.String() != want {
		t.Errorf("on a terminal:\n got %q\nwant %q", b.String(), want)
	}

	clock = start
	f := stderrFile(t)
	run(newStatusLine(f))
	if got := readAll(t, f); got != lines {
		t.Errorf("to a file: wrote %q, want %q", got, lines)
	}
}

// A line wider than the terminal would wrap, and "\r" could not take it
// back: it is cut to fit, ending in "…".
func TestFit(t *testing.T) {
	for _, tt := range []struct {
		s     string
		width int
		want  string
	}{
		{"waiting …", 0, "waiting …"},
		{"waiting …", 10, "waiting …"},
		{"waiting …", 9, "waiting…"},
		{"wäiting until healthy …", 8, "wäitin…"},
		{"abc", 1, "…"},
	} {
		if got := fit(tt.s, tt.width); got != tt.want {
			t.Errorf("fit(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
	}
}
