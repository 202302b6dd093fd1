package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// serveProc is an olmops serve process and its addresses.
type serveProc struct {
	cmd     *exec.Cmd
	log     string
	metrics string // host:port
	probe   string
	hook    string // the push webhook's URL
	done    chan struct{}
	err     error // how it exited, once done is closed
}

// startControllers runs olmops serve against each control plane and waits
// until each is ready.
func (d *demo) startControllers(ctx context.Context) error {
	secret := make([]byte, 16)
	rand.Read(secret)
	d.hookSecret = hex.EncodeToString(secret)
	secretFile := filepath.Join(d.tmp, "webhook-secret")
	if err := os.WriteFile(secretFile, []byte(d.hookSecret), 0o600); err != nil {
		return err
	}
	// All ports at once: a port closed by one call could come back from
	// the next.
	addrs, err := freeAddrs(3 * len(d.clusters))
	if err != nil {
		return err
	}
	for i, c := range d.clusters {
		s, err := d.startServe(ctx, c, secretFile, addrs[3*i:3*i+3])
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		c.serve = s
		d.onCleanup(s.stop)
	}
	for _, c := range d.clusters {
		if err := c.serve.waitReady(ctx); err != nil {
			return fmt.Errorf("%s: olmops serve: %w\n%s", c.name, err, c.serve.tail(20))
		}
		d.out.line("%-9s  ready; metrics http://%s/metrics, webhook %s, log %s", c.name, c.serve.metrics, c.serve.hook, c.serve.log)
	}
	return nil
}

// startServe starts olmops serve for c on addrs: metrics, probes, webhook.
func (d *demo) startServe(ctx context.Context, c *cluster, secretFile string, addrs []string) (*serveProc, error) {
	s := &serveProc{metrics: addrs[0], probe: addrs[1], hook: "http://" + addrs[2] + "/hooks/push",
		log: filepath.Join(c.dir, "serve.log"), done: make(chan struct{})}
	args := []string{"serve", "--kubeconfig", c.kubeconfig,
		"--metrics-bind-address", addrs[0], "--health-probe-bind-address", addrs[1],
		"--webhook-bind-address", addrs[2], "--webhook-secret-file", secretFile,
		"--cache-dir", filepath.Join(c.dir, "cache"), "--recheck", "1s", "--health-poll", "100ms",
		"--log-format", "text"}
	d.out.command("olmops", args...)
	log, err := os.Create(s.log)
	if err != nil {
		return nil, err
	}
	// stop ends it, after what depends on it, not the context.
	s.cmd = command(context.WithoutCancel(ctx), d.olmops, args...)
	s.cmd.Stdout, s.cmd.Stderr = log, log
	if err := s.cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	go func() {
		s.err = s.cmd.Wait()
		log.Close()
		close(s.done)
	}()
	return s, nil
}

// command runs name in a process group of its own, so that Ctrl-C
// reaches the demo only, which ends its children in order: those of ctx
// when it ends (the whole group, as git runs helpers), serve at cleanup.
func command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// freeAddrs finds n free ports on 127.0.0.1. Another process could take
// one before serve binds it; serve would then fail to start, and say so.
func freeAddrs(n int) ([]string, error) {
	var addrs []string
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		addrs = append(addrs, l.Addr().String())
	}
	return addrs, nil
}

// waitReady polls /readyz until it answers 200, serve exits, or 30s pass.
func (s *serveProc) waitReady(ctx context.Context) error {
	url := "http://" + s.probe + "/readyz"
	return poll(ctx, "/readyz", 30*time.Second, func(ctx context.Context) (bool, string, error) {
		select {
		case <-s.done:
			return false, "", fmt.Errorf("exited early: %v", s.err)
		default:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, "", err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, err.Error(), nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status, nil
	})
}

// stop asks serve to shut down and waits for it; a serve that takes more
// than 15s is killed.
func (s *serveProc) stop() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-s.done:
		return nil
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		return fmt.Errorf("olmops serve did not stop within 15s of SIGTERM; killed it (log: %s)", s.log)
	}
}

// tail is the end of serve's log, for a failure message.
func (s *serveProc) tail(n int) string {
	data, err := os.ReadFile(s.log)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	lines = lines[max(0, len(lines)-n):]
	return "the last lines of olmops serve's log:\n  " + strings.Join(lines, "\n  ")
}
