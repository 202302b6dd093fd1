//go:build unix

package gitsource

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/go-logr/logr"
)

// lockPoll is how often a process waiting for a cache clone's lock asks
// again; flock itself cannot be cancelled, so it is asked without blocking.
const lockPoll = 50 * time.Millisecond

// lockFile takes an exclusive flock on path, waiting while another process
// (or another Repo in this one) holds it, until ctx ends. The kernel drops
// the lock when the process dies, so a killed run never leaves it held.
func lockFile(ctx context.Context, path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	logged := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !logged {
			logr.FromContextOrDiscard(ctx).V(1).Info("waiting for another olmops using the same cache clone", "lock", path)
			logged = true
		}
		t := time.NewTimer(lockPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, context.Cause(ctx))
		case <-t.C:
		}
	}
}
