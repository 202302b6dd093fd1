//go:build !olmops_cli

package main

import (
	"bytes"
	"testing"

	"github.com/olmops/olmops/reconciler"
)

// apply's events are lines that stay; between a hop's start and its end
// a terminal shows which hop the health wait is on, and a file does not.
func TestApplyEvents(t *testing.T) {
	events := []reconciler.Event{
		{Reason: "HopStarted", Message: "ns/etcd: applying etcd.v0.9.4 (hop 1/1)"},
		{Reason: "HopInstalled", Message: "ns/etcd: etcd.v0.9.4 installed and healthy (hop 1/1)"},
	}
	lines := "HopStarted: ns/etcd: applying etcd.v0.9.4 (hop 1/1)\n" +
		"HopInstalled: ns/etcd: etcd.v0.9.4 installed and healthy (hop 1/1)\n"
	var b bytes.Buffer
	send := applyEvents(&statusLine{w: &b, tty: true})
	for _, e := range events {
		send(e)
	}
	if want := "HopStarted: ns/etcd: applying etcd.v0.9.4 (hop 1/1)\n" +
		"\r\033[Kwaiting until healthy: ns/etcd: applying etcd.v0.9.4 (hop 1/1) …\r\033[K" +
		"HopInstalled: ns/etcd: etcd.v0.9.4 installed and healthy (hop 1/1)\n"; b.String() != want {
		t.Errorf("on a terminal: wrote %q, want %q", b.String(), want)
	}

	f := stderrFile(t)
	send = applyEvents(newStatusLine(f))
	for _, e := range events {
		send(e)
	}
	if got := readAll(t, f); got != lines {
		t.Errorf("to a file: wrote %q, want %q", got, lines)
	}
}
