package gittest

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sshdPath is where Debian's openssh-server puts sshd; make deps
// installs it when it is missing.
const sshdPath = "/usr/sbin/sshd"

// SSHServer is OpenSSH's own sshd on 127.0.0.1, serving the bare
// repositories under Root (as git-upload-pack and git-receive-pack run
// by the login shell) to the holder of one key, for tests of SSH git auth.
type SSHServer struct {
	// Root holds the bare repositories, one <name>.git folder each.
	Root string
	// Addr is 127.0.0.1:<port>.
	Addr string
	// User is the login: the user running the test.
	User string
	// UserKey is the PEM private key sshd accepts.
	UserKey []byte
	// KnownHosts is a known_hosts file naming the server's host key.
	KnownHosts string
	// OtherKey is a PEM private key sshd does not accept, and
	// OtherKnownHosts a known_hosts file naming another host key.
	OtherKey        []byte
	OtherKnownHosts string
}

// NewSSHServer starts sshd with generated host and user keys until the
// test ends. It skips the test when sshd is not installed (make deps
// installs it) and installs nothing itself.
func NewSSHServer(t testing.TB) *SSHServer {
	t.Helper()
	RequireGit(t)
	if _, err := os.Stat(sshdPath); err != nil {
		t.Skipf("sshd is not installed at %s: run make deps (it installs openssh-server)", sshdPath)
	}
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen is not installed: run make deps (it installs openssh-server)")
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := &SSHServer{Root: filepath.Join(dir, "repos"), User: u.Username, Addr: freeAddr(t)}
	if err := os.Mkdir(s.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	keys := map[string][]byte{}
	for _, name := range []string{"host", "other-host", "user", "other-user"} {
		keygen(t, filepath.Join(dir, name))
		keys[name] = readFile(t, filepath.Join(dir, name))
		keys[name+".pub"] = readFile(t, filepath.Join(dir, name+".pub"))
	}
	s.UserKey, s.OtherKey = keys["user"], keys["other-user"]
	host := strings.Replace(s.Addr, "127.0.0.1:", "[127.0.0.1]:", 1)
	s.KnownHosts, s.OtherKnownHosts = filepath.Join(dir, "known_hosts"), filepath.Join(dir, "other_known_hosts")
	writeFile(t, s.KnownHosts, host+" "+string(keys["host.pub"]))
	writeFile(t, s.OtherKnownHosts, host+" "+string(keys["other-host.pub"]))
	writeFile(t, filepath.Join(dir, "authorized_keys"), string(keys["user.pub"]))
	config := filepath.Join(dir, "sshd_config")
	writeFile(t, config, strings.Join([]string{
		"ListenAddress " + s.Addr,
		"HostKey " + filepath.Join(dir, "host"),
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"),
		"AllowUsers " + s.User,
		"PubkeyAuthentication yes", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password", "UsePAM no", "StrictModes no", "PidFile none",
	}, "\n")+"\n")
	s.start(t, config)
	return s
}

// RepoURL is the ssh:// URL of repository name.
func (s *SSHServer) RepoURL(name string) string {
	return "ssh://" + s.User + "@" + s.Addr + filepath.ToSlash(filepath.Join(s.Root, name+".git"))
}

// CreateRepo creates an empty bare repository name and returns its folder.
func (s *SSHServer) CreateRepo(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(s.Root, name+".git")
	Git(t, s.Root, "init", "--quiet", "--bare", "--initial-branch=main", dir)
	return dir
}

func (s *SSHServer) start(t testing.TB, config string) {
	t.Helper()
	// sshd run as root wants its privilege separation folder, which the
	// package's service unit creates at boot, and a container never boots.
	if os.Geteuid() == 0 {
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	cmd := exec.Command(sshdPath, "-D", "-e", "-f", config)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sshd: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case err := <-done:
			t.Fatalf("sshd exited: %v\n%s", err, log.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", s.Addr, time.Second); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd does not listen on %s after 10s", s.Addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freeAddr is a 127.0.0.1 address nothing listened on a moment ago.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func keygen(t testing.TB, path string) {
	t.Helper()
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gittest", "-f", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
