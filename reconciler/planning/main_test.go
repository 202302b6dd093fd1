package planning_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/olmops/olmops/internal/gittest"
)

const gitPassword = "s3cret-git-password"

var gitServer *gittest.Server

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	klog.SetLogger(logr.Discard())
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
