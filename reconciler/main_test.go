package reconciler

import (
	"fmt"
	"github.com/go-logr/logr"
	"os"
	ctrl "sigs.k8s.io/controller-runtime"
	"testing"

	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
)

var (
	gitServer *gittest.Server
	crdDirs   = kubetest.WithCRDDirs("../config/crd/bases")
)

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
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
