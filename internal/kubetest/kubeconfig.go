package kubetest

import (
	"path/filepath"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Kubeconfig writes a kubeconfig file reaching the control plane as Config
// does, for a process the test starts (olmops serve, olmops apply), and
// returns its path.
func (e *Env) Kubeconfig(t testing.TB) string {
	t.Helper()
	c := e.Config
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["envtest"] = &clientcmdapi.Cluster{Server: c.Host, CertificateAuthorityData: c.CAData}
	cfg.AuthInfos["envtest"] = &clientcmdapi.AuthInfo{ClientCertificateData: c.CertData, ClientKeyData: c.KeyData, Token: c.BearerToken}
	cfg.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "envtest"}
	cfg.CurrentContext = "envtest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}
