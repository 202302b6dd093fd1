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
// code under test. "cat-file --batch" is one long-running process:
// its Runs are the revisions it resolved, its CPU includes the time of
// the running process.
func (s *Server) GitRuns() map[string]GitRun {
	s.gitRuns.mu.Lock()
	out := maps.Clone(s.gitRuns.runs)
	s.gitRuns.mu.Unlock()
	if out == nil {
		out = map[string]GitRun{}
	}
	if s.catFile != nil {
		if c := s.catFile.cost(); c.Runs > 0 {
			out["cat-file --batch"] = c
		}
	}
	return out
}
