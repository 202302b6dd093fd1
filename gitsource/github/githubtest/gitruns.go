package githubtest

import (
	"maps"
	"os/exec"
	"sync"
	"time"
)

// GitRun sums the git subprocesses the fake ran for one git subcommand.
type GitRun struct {
	// Runs is the number of processes.
	Runs int
	// CPU is their user and system time.
	CPU time.Duration
}

// gitRuns counts the fake's git subprocesses by subcommand.
type gitRuns struct {
	mu   sync.Mutex
	runs map[string]GitRun
}

func (g *gitRuns) add(sub string, cmd *exec.Cmd) {
	if cmd.ProcessState == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.runs == nil {
		g.runs = map[string]GitRun{}
	}
	r := g.runs[sub]
	r.Runs++
	r.CPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	g.runs[sub] = r
}

// GitRuns reports the git subprocesses the fake ran so far, by subcommand
// (rev-parse, merge-base, …): what the fake costs a benchmark beside the
// code under test.
func (s *Server) GitRuns() map[string]GitRun {
	s.gitRuns.mu.Lock()
	defer s.gitRuns.mu.Unlock()
	return maps.Clone(s.gitRuns.runs)
}
