package planning

import (
	"errors"
	"fmt"
	"testing"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
)

func TestRefused(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"credentials refused", fmt.Errorf("push main: %w", gitsource.ErrAuth), true},
		{"a pre-receive hook", errors.New("command error on refs/heads/main: pre-receive hook declined"), true},
		{"GitHub's protection", errors.New("remote: error: GH006: Protected branch update failed for refs/heads/main."), true},
		{"a lost race", fmt.Errorf("push main: %w: failed to update ref", gitsource.ErrNonFastForward), false},
		{"a rate limit", fmt.Errorf("%w: 403 API rate limit exceeded", github.ErrRateLimited), false},
		{"the network", errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := refused(tt.err); got != tt.want {
				t.Errorf("refused(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
