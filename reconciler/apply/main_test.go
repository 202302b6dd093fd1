package apply

import (
	"os"
	"testing"

	"github.com/olmops/olmops/internal/kubetest"
)

// kube is the package's one control plane; the OperatorCondition CRD is
// what a cluster olmops installs into must have.
var kube = kubetest.NewShared(kubetest.WithOperatorConditionCRD())

func TestMain(m *testing.M) { os.Exit(kube.Run(m)) }
