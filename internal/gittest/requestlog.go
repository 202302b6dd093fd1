package gittest

import (
	"io"
	"os/exec"
	"sync"
)

// requestLogScript runs git-http-backend ($1) for one CGI request and
// has bash's time keyword write what it cost to standard error, which
// net/http/cgi hands to the server's RequestLog: the user and system time
// of http-backend and of the git processes it waited for (upload-pack or
// receive-pack, and theirs: pack-objects, index-pack, the connectivity
// check's rev-list, gc --auto).
const requestLogScript = `q="$REQUEST_METHOD $PATH_INFO?$QUERY_STRING"
TIMEFORMAT="gittest-cgi ${q//%/%%} user=%3U sys=%3S"
time "$1"
`

// requestLogger returns the program and arguments that run backend for
// one request and log its cost, or backend alone when bash is missing.
func requestLogger(backend string) (string, []string) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return backend, nil
	}
	return bash, []string{"-c", requestLogScript, "gittest-cgi", backend}
}

// lockedWriter serializes the writes of concurrent requests' stderr, one
// line each.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
