package harness

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Serve is an olmops serve process and its addresses.
type Serve struct {
	Args    []string // its command line, without the binary
	Log     string
	Metrics string // host:port
	probe   string
	Hook    string // the push webhook's URL
	secret  string
	cmd     *exec.Cmd
	done    chan struct{}
	err     error // how it exited, once done is closed
}

// ServeAddrs is how many addresses StartServe takes.
const ServeAddrs = 3

// StartServe runs olmops serve against c on addrs (metrics, probes,
// webhook; see FreeAddrs), its push webhook checking secret. It lives
// until Stop, not until ctx ends, so that it outlasts what depends on it.
func StartServe(ctx context.Context, olmops string, c *Cluster, secret string, addrs []string) (*Serve, error) {
	secretFile := filepath.Join(c.Dir, "webhook-secret")
	if err := os.WriteFile(secretFile, []byte(secret), 0o600); err != nil {
		return nil, err
	}
	s := &Serve{Metrics: addrs[0], probe: addrs[1], Hook: "http://" + addrs[2] + "/hooks/push", secret: secret,
		Log: filepath.Join(c.Dir, "serve.log"), done: make(chan struct{})}
	s.Args = []string{"serve", "--kubeconfig", c.Kubeconfig,
		"--metrics-bind-address", addrs[0], "--health-probe-bind-address", addrs[1],
		"--webhook-bind-address", addrs[2], "--webhook-secret-file", secretFile,
		"--cache-dir", filepath.Join(c.Dir, "cache"), "--recheck", "1s", "--health-poll", "100ms",
		"--log-format", "text"}
	log, err := os.Create(s.Log)
	if err != nil {
		return nil, err
	}
	s.cmd = Command(context.WithoutCancel(ctx), olmops, s.Args...)
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

// Command runs name in a process group of its own, so that Ctrl-C
// reaches the caller only, which ends its children in order: those of ctx
// when it ends (the whole group, as git runs helpers), serve at Stop.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// FreeAddrs finds n free ports on 127.0.0.1, all at once: a port closed
// by one call could come back from the next. Another process could take
// one before serve binds it; serve would then fail to start, and say so.
func FreeAddrs(n int) ([]string, error) {
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

// WaitReady polls /readyz until it answers 200, serve exits, or 30s pass.
func (s *Serve) WaitReady(ctx context.Context) error {
	url := "http://" + s.probe + "/readyz"
	return Poll(ctx, "/readyz", 30*time.Second, func(ctx context.Context) (bool, string, error) {
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

// Stop asks serve to shut down and waits for it; a serve that takes more
// than 15s is killed.
func (s *Serve) Stop() error {
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
		return fmt.Errorf("olmops serve did not stop within 15s of SIGTERM; killed it (log: %s)", s.Log)
	}
}

// Tail is the end of serve's log, for a failure message.
func (s *Serve) Tail(n int) string {
	data, err := os.ReadFile(s.Log)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	lines = lines[max(0, len(lines)-n):]
	return "the last lines of olmops serve's log:\n  " + strings.Join(lines, "\n  ")
}

// PostPush sends serve's webhook the push event GitHub would send for a
// new head of main of repoURL, signed with the secret, and returns the
// answer; anything but 202 Accepted is an error.
func (s *Serve) PostPush(ctx context.Context, repoURL, head string) (string, error) {
	body := fmt.Appendf(nil, `{"ref":"refs/heads/main","after":%q,"repository":{"clone_url":%q}}`, head, repoURL)
	mac := hmac.New(sha256.New, []byte(s.secret))
	mac.Write(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.Hook, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("webhook: %w", err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	got := resp.Status + " " + strings.TrimSpace(string(answer))
	if resp.StatusCode != http.StatusAccepted {
		return got, fmt.Errorf("webhook answered %s, want 202 Accepted", resp.Status)
	}
	return got, nil
}

// Poll calls cond every 100ms until it holds, fails, or timeout passes;
// its string says what it saw, for the error.
func Poll(ctx context.Context, what string, timeout time.Duration, cond func(context.Context) (bool, string, error)) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, saw, err := cond(ctx)
		switch {
		case err != nil:
			return fmt.Errorf("%s: %w", what, err)
		case ok:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("%s: still not so after %s; last saw %s", what, timeout, saw)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w; last saw %s", what, ctx.Err(), saw)
		case <-tick.C:
		}
	}
}
