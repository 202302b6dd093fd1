package githubtest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// catFile is one long-running `git cat-file --batch-check` that resolves
// revisions for the fake: a planner asks for the statuses of every new
// commit of a pass, and a git process per question cost more CPU than the
// planner it served. git looks objects up anew for every line (a miss
// rescans the packs), so objects pushed after it started are found.
type catFile struct {
	dir string

	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	// lines counts the revisions asked; ended sums the CPU of processes
	// that ended.
	lines int
	ended time.Duration
}

// resolve asks for rev^{commit}: the commit's hash, or ok false when git
// knows no such commit. A rev that would break the line protocol is
// refused with an error, for the caller to ask git directly.
func (c *catFile) resolve(rev string) (sha string, ok bool, err error) {
	if strings.ContainsAny(rev, " \t\r\n") {
		return "", false, fmt.Errorf("githubtest: cat-file: %q", rev)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		if err := c.start(); err != nil {
			return "", false, err
		}
	}
	c.lines++
	if _, err := io.WriteString(c.in, rev+"^{commit}\n"); err != nil {
		c.stopLocked()
		return "", false, err
	}
	line, err := c.out.ReadString('\n')
	if err != nil {
		c.stopLocked()
		return "", false, err
	}
	// "<sha> commit <size>", or "<rev> missing" / "<rev> ambiguous".
	f := strings.Fields(line)
	if len(f) == 3 && f[1] == "commit" && fullSHA.MatchString(f[0]) {
		return f[0], true, nil
	}
	return "", false, nil
}

func (c *catFile) start() error {
	cmd := exec.Command("git", "-C", c.dir, "cat-file", "--batch-check")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_TERMINAL_PROMPT=0")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	c.cmd, c.in, c.out = cmd, in, bufio.NewReader(out)
	return nil
}

// stop ends the process; the next resolve starts another.
func (c *catFile) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopLocked()
}

func (c *catFile) stopLocked() {
	if c.cmd == nil {
		return
	}
	c.in.Close()
	c.cmd.Wait()
	c.ended += c.cmd.ProcessState.UserTime() + c.cmd.ProcessState.SystemTime()
	c.cmd = nil
}

// cost is the revisions asked and the CPU the processes took, the running
// one's read from /proc (Linux; elsewhere only ended ones count): it has
// not ended, so the getrusage of the fake's user does not see it yet.
func (c *catFile) cost() GitRun {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := GitRun{Runs: c.lines, CPU: c.ended}
	if c.cmd != nil {
		r.CPU += procCPU(c.cmd.Process.Pid)
	}
	return r
}

// procCPU is the user and system time of a running process from
// /proc/<pid>/stat, 0 when it cannot be read.
func procCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, field 2, may hold spaces: count after its ")".
	_, rest, ok := strings.Cut(string(data), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	// USER_HZ is 100 on every Linux architecture Go runs tests on.
	return time.Duration(utime+stime) * (time.Second / 100)
}
