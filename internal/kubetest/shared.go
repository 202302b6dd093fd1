package kubetest

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// Shared is one control plane for all tests of a package, started by the
// first test that asks for it and stopped by Run once every test is done.
type Shared struct {
	opts []Option
	once sync.Once
	env  *Env
	err  error
}

// NewShared prepares a control plane started with opts; nothing runs yet.
func NewShared(opts ...Option) *Shared {
	return &Shared{opts: opts}
}

// Env returns the running control plane, starting it on the first call.
// When the start failed, every calling test fails with that error.
func (s *Shared) Env(t testing.TB) *Env {
	t.Helper()
	s.once.Do(func() { s.env, s.err = start(s.opts) })
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.env
}

// Run runs the tests, then stops the control plane if one was started; a
// failure to stop turns a passing run into a failing one, since it leaves
// processes behind. Call it from TestMain: os.Exit(shared.Run(m)).
func (s *Shared) Run(m *testing.M) int {
	code := m.Run()
	// Spending the once keeps a straggling goroutine from starting a
	// control plane that nobody would stop.
	s.once.Do(func() { s.err = fmt.Errorf("kubetest: tests are over") })
	if s.env == nil {
		return code
	}
	if err := s.env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "kubetest: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
