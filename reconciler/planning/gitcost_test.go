package planning_test

import (
	"bytes"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// gitCost collects the lines a gittest server's RequestLog writes and
// sums them by request: which fetches and pushes of a pass cost git
// http-backend what.
type gitCost struct {
	mu    sync.Mutex
	lines []byte
}

func (g *gitCost) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.lines = append(g.lines, p...)
	return len(p), nil
}

// take returns the requests logged since the last take, summed by what
// they asked for ("GET info/refs?service=git-upload-pack", "POST
// git-receive-pack").
func (g *gitCost) take() gitCostSummary {
	g.mu.Lock()
	lines := g.lines
	g.lines = nil
	g.mu.Unlock()
	sum := gitCostSummary{}
	for _, line := range bytes.Split(lines, []byte("\n")) {
		m := costLine.FindSubmatch(line)
		if m == nil {
			continue
		}
		what := string(m[1]) + " " + strings.TrimSuffix(string(m[2]), "?")
		c := sum[what]
		c.requests++
		c.cpu += seconds(string(m[3])) + seconds(string(m[4]))
		sum[what] = c
	}
	return sum
}

// costLine is a RequestLog line: method, the path after the repository
// and its query, user and system time.
var costLine = regexp.MustCompile(`^gittest-cgi (\S+) /[^/]+\.git/(\S*) user=(\S+) sys=(\S+)`)

// seconds parses bash's %3U, 1.234.
func seconds(s string) time.Duration {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

type gitCostSummary map[string]struct {
	requests int
	cpu      time.Duration
}

func (s gitCostSummary) String() string {
	var out []string
	var total time.Duration
	for _, k := range slices.Sorted(maps.Keys(s)) {
		out = append(out, fmt.Sprintf("%s ×%d %.2fs", k, s[k].requests, s[k].cpu.Seconds()))
		total += s[k].cpu
	}
	return fmt.Sprintf("%.2fs: %s", total.Seconds(), strings.Join(out, ", "))
}
