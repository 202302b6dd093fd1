package kubetest

import (
	"os"
	"testing"
)

// kube is the package's one control plane, started by the first test that
// needs it.
var kube = NewShared(WithOperatorConditionCRD())

func TestMain(m *testing.M) { os.Exit(kube.Run(m)) }
