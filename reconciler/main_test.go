package reconciler

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
)

var (
	gitServer *gittest.Server
	crdDirs   = kubetest.WithCRDDirs("../config/crd/bases")
)

func TestMain(m *testing.M) {
	// controller-runtime takes its global logger once, and klog's may not
	// change while goroutines log: both forward to logTarget, which a
	// test swaps (captureLogs). Nothing is logged by default.
	ctrl.SetLogger(logr.New(forwardSink{}))
	klog.SetLoggerWithOptions(logr.New(forwardSink{}), klog.ContextualLogger(true))
	s, err := gittest.Start(gittest.ServerOptions{Username: "olmops", Password: gitPassword})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	gitServer = s
	code := m.Run()
	s.Close()
	os.Exit(code)
}

// logTarget receives what the package's managers log; nil discards it.
var logTarget atomic.Pointer[logr.Logger]

// forwardSink sends each line to logTarget as it is when the line is
// logged, so that loggers made before a test swapped the target (a
// manager's, a controller's) still reach it.
type forwardSink struct {
	names  []string
	values []any
}

func (s forwardSink) target() (logr.Logger, bool) {
	l := logTarget.Load()
	if l == nil {
		return logr.Logger{}, false
	}
	out := *l
	for _, n := range s.names {
		out = out.WithName(n)
	}
	return out.WithValues(s.values...), true
}

func (s forwardSink) Init(logr.RuntimeInfo) {}

func (s forwardSink) Enabled(level int) bool {
	l, ok := s.target()
	return ok && l.GetSink() != nil && l.GetSink().Enabled(level)
}

func (s forwardSink) Info(level int, msg string, kv ...any) {
	if l, ok := s.target(); ok && l.GetSink() != nil {
		l.GetSink().Info(level, msg, kv...)
	}
}

func (s forwardSink) Error(err error, msg string, kv ...any) {
	if l, ok := s.target(); ok && l.GetSink() != nil {
		l.GetSink().Error(err, msg, kv...)
	}
}

func (s forwardSink) WithName(name string) logr.LogSink {
	return forwardSink{names: append(s.names[:len(s.names):len(s.names)], name), values: s.values}
}

func (s forwardSink) WithValues(kv ...any) logr.LogSink {
	return forwardSink{names: s.names, values: append(s.values[:len(s.values):len(s.values)], kv...)}
}

// logBuffer holds captured log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// captureLogs records what the package's managers (and klog) log, until
// the test ends, at every verbosity short of client-go's HTTP tracing
// (V(6) and up: request bodies, Secrets included), which no deployment
// of olmops turns on.
func captureLogs(t *testing.T) *logBuffer {
	t.Helper()
	b := &logBuffer{}
	l := funcr.New(func(prefix, args string) {
		b.mu.Lock()
		defer b.mu.Unlock()
		fmt.Fprintf(&b.buf, "%s %s\n", prefix, args)
	}, funcr.Options{Verbosity: 5})
	if !logTarget.CompareAndSwap(nil, &l) {
		t.Fatal("another test captures the logs")
	}
	t.Cleanup(func() { logTarget.Store(nil) })
	return b
}
