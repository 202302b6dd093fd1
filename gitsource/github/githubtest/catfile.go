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

// catFile is one long-running `git cat-file --batch` that resolves
// revisions and reads commits' parents for the fake: a planner asks for
// the statuses of every new commit of a pass and opens a pull request per
// cluster, and a git process per question (rev-parse, merge-base) cost
// more CPU than the planner it served. git looks objects up anew for
// every line (a miss rescans the packs), so objects pushed after it
// started are found.
type catFile struct {
	dir string

	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	// parents of the commits read so far: commits never change.
	parents map[string][]string
	// lines counts the revisions asked; ended sums the CPU of processes
	// that ended.
	lines int
	ended time.Duration
}

// maxWalk bounds the commits one ancestry check visits; past it git
// answers.
const maxWalk = 100_000

// resolve asks for rev^{commit}: the commit's hash, or ok false when git
// knows no such commit. A rev that would break the line protocol is
// refused with an error, for the caller to ask git directly.
func (c *catFile) resolve(rev string) (sha string, ok bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sha, _, ok, err = c.commitLocked(rev + "^{commit}")
	return sha, ok, err
}

// isAncestor says whether commit a is reachable from commit b, as git
// merge-base --is-ancestor does, walking b's history through the cache of
// parents.
func (c *catFile) isAncestor(a, b string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]bool{b: true}
	queue := []string{b}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if x == a {
			return true, nil
		}
		if len(seen) > maxWalk {
			return false, fmt.Errorf("githubtest: cat-file: more than %d commits below %s", maxWalk, b)
		}
		ps, ok := c.parents[x]
		if !ok {
			_, content, found, err := c.commitLocked(x)
			if err != nil {
				return false, err
			}
			if !found {
				return false, fmt.Errorf("githubtest: cat-file: no commit %s", x)
			}
			ps = parseParents(content)
			c.parents[x] = ps
		}
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return false, nil
}

// parseParents reads the parent lines of a commit object's header.
func parseParents(commit []byte) []string {
	var out []string
	for line := range strings.Lines(string(commit)) {
		if line == "\n" {
			break
		}
		if p, ok := strings.CutPrefix(line, "parent "); ok {
			out = append(out, strings.TrimSpace(p))
		}
	}
	return out
}

// commitLocked reads rev from the batch: ok is false when it names no
// commit (missing, ambiguous, or another type).
func (c *catFile) commitLocked(rev string) (sha string, content []byte, ok bool, err error) {
	if strings.ContainsAny(rev, " \t\r\n") {
		return "", nil, false, fmt.Errorf("githubtest: cat-file: %q", rev)
	}
	if c.cmd == nil {
		if err := c.start(); err != nil {
			return "", nil, false, err
		}
	}
	c.lines++
	if _, err := io.WriteString(c.in, rev+"\n"); err != nil {
		c.stopLocked()
		return "", nil, false, err
	}
	line, err := c.out.ReadString('\n')
	if err != nil {
		c.stopLocked()
		return "", nil, false, err
	}
	// "<sha> <type> <size>" and the content, or "<rev> missing" /
	// "<rev> ambiguous" alone.
	f := strings.Fields(line)
	if len(f) != 3 {
		return "", nil, false, nil
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size < 0 {
		c.stopLocked()
		return "", nil, false, fmt.Errorf("githubtest: cat-file: %q", line)
	}
	content = make([]byte, size+1) // and the newline after it
	if _, err := io.ReadFull(c.out, content); err != nil {
		c.stopLocked()
		return "", nil, false, err
	}
	if f[1] != "commit" || !fullSHA.MatchString(f[0]) {
		return "", nil, false, nil
	}
	return f[0], content[:size], true, nil
}

func (c *catFile) start() error {
	cmd := exec.Command("git", "-C", c.dir, "cat-file", "--batch")
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
	if c.parents == nil {
		c.parents = map[string][]string{}
	}
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
