package oci_test

import (
	"encoding/base64"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"

	"github.com/olmops/olmops/catalog/oci"
	"github.com/olmops/olmops/catalog/oci/ocitest"
)

func dockerConfig(host, user, pass string) string {
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	return `{"auths": {"` + host + `": {"auth": "` + auth + `"}}}`
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Credentials come from the places people keep them; without them the
// registry's 401 is reported as an authentication failure.
func TestBasicAuth(t *testing.T) {
	reg := ocitest.NewRegistry(t, ocitest.WithBasicAuth("olmops", "s3cret"))
	byDigest := pushBundle(t, reg, "olmops/private-bundle:v1")
	home := t.TempDir() // no ~/.docker/config.json, no podman auth.json
	t.Setenv("HOME", home)
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", "")

	tests := []struct {
		name     string
		env      func(t *testing.T)
		keychain func(t *testing.T) authn.Keychain
		ok       bool
	}{
		{name: "no credentials", env: func(t *testing.T) {}},
		{name: "wrong password", env: func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "config.json", dockerConfig(reg.Host, "olmops", "guess"))
			t.Setenv("DOCKER_CONFIG", dir)
		}},
		{name: "DOCKER_CONFIG", ok: true, env: func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "config.json", dockerConfig(reg.Host, "olmops", "s3cret"))
			t.Setenv("DOCKER_CONFIG", dir)
		}},
		{name: "REGISTRY_AUTH_FILE before a docker config without it", ok: true, env: func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "config.json", `{"auths": {}}`)
			t.Setenv("DOCKER_CONFIG", dir)
			t.Setenv("REGISTRY_AUTH_FILE", writeFile(t, dir, "auth.json", dockerConfig("http://"+reg.Host+"/v2/", "olmops", "s3cret")))
		}},
		{name: "pull secret", ok: true, env: func(t *testing.T) {}, keychain: func(t *testing.T) authn.Keychain {
			kc, err := oci.KeychainFromDockerConfigJSON([]byte(dockerConfig(reg.Host+"/olmops", "olmops", "s3cret")))
			if err != nil {
				t.Fatal(err)
			}
			return kc
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("DOCKER_CONFIG", t.TempDir())
			t.Setenv("REGISTRY_AUTH_FILE", "")
			tt.env(t)
			opts := oci.Options{}
			if tt.keychain != nil {
				opts.Keychain = tt.keychain(t)
			}
			_, err := newPuller(t, opts).Bundle(t.Context(), byDigest)
			if tt.ok {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, oci.ErrUnauthorized) || !strings.HasPrefix(err.Error(), "image "+byDigest+": authentication failed") {
				t.Errorf("error = %v, want an authentication failure naming the image", err)
			}
		})
	}
}

func TestKeychainFromDockerConfigJSON(t *testing.T) {
	basic := func(u, p string) string { return base64.StdEncoding.EncodeToString([]byte(u + ":" + p)) }
	config := `{"auths": {
		"https://index.docker.io/v1/": {"auth": "` + basic("hub", "h") + `"},
		"quay.io": {"username": "q", "password": "qp"},
		"quay.io/team": {"auth": "` + basic("team", "t") + `"},
		"registry.local:5000": {"identitytoken": "tok"}
	}}`
	tests := []struct {
		repo string
		want authn.AuthConfig
	}{
		{"busybox", authn.AuthConfig{Username: "hub", Password: "h"}},
		{"quay.io/other/etcd", authn.AuthConfig{Username: "q", Password: "qp"}},
		{"quay.io/team/etcd", authn.AuthConfig{Username: "team", Password: "t"}},
		{"quay.io/teamster/etcd", authn.AuthConfig{Username: "q", Password: "qp"}},
		{"registry.local:5000/x", authn.AuthConfig{IdentityToken: "tok"}},
		{"ghcr.io/x", authn.AuthConfig{}},
	}
	kc, err := oci.KeychainFromDockerConfigJSON([]byte(config))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.repo, func(t *testing.T) {
			repo, err := name.NewRepository(tt.repo)
			if err != nil {
				t.Fatal(err)
			}
			a, err := kc.Resolve(repo)
			if err != nil {
				t.Fatal(err)
			}
			got, err := a.Authorization()
			if err != nil {
				t.Fatal(err)
			}
			if *got != tt.want {
				t.Errorf("credentials = %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestKeychainFromDockerConfigJSONErrors(t *testing.T) {
	tests := []struct {
		name, data, msg string
	}{
		{"not JSON", `{`, "docker config: "},
		{"auths not an object", `{"auths": []}`, "docker config: auths: "},
		{"auth not base64", `{"auths": {"quay.io": {"auth": "!!"}}}`, `auths["quay.io"].auth: not base64`},
		{"auth without colon", `{"auths": {"quay.io": {"auth": "` + base64.StdEncoding.EncodeToString([]byte("user")) + `"}}}`, "not user:password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := oci.KeychainFromDockerConfigJSON([]byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error = %v, want %q", err, tt.msg)
			}
		})
	}
	// The legacy .dockercfg form, beside settings that are not registries.
	kc, err := oci.KeychainFromDockerConfigJSON([]byte(`{"credsStore": "desktop", "quay.io": {"username": "u", "password": "p"}}`))
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := name.NewRepository("quay.io/x")
	if a, _ := kc.Resolve(repo); a == authn.Anonymous {
		t.Error("legacy entry not found")
	}
}

func FuzzKeychainFromDockerConfigJSON(f *testing.F) {
	f.Add([]byte(dockerConfig("quay.io", "u", "p")))
	f.Add([]byte(`{"quay.io": {"auth": "dTpw"}}`))
	f.Add([]byte(`{"auths": {"https://index.docker.io/v1/": {"identitytoken": "x"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		kc, err := oci.KeychainFromDockerConfigJSON(data)
		if err != nil {
			return
		}
		repo, _ := name.NewRepository("quay.io/team/etcd")
		if _, err := kc.Resolve(repo); err != nil {
			t.Errorf("Resolve: %v", err)
		}
	})
}

// A registry (or a proxy in front of it) whose error body echoes the
// request's credentials must not put them in olmops's errors, which end in
// logs, conditions and pull requests.
func TestRegistryErrorBodyRedacted(t *testing.T) {
	const pass = "s3cret-registry-password"
	echo := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if h := r.Header.Get("Authorization"); h != "" && strings.Contains(r.URL.Path, "/manifests/") {
				http.Error(w, "proxy rejected Authorization: "+h+" for https://olmops:"+pass+"@mirror.example/v2/x?access_token="+pass, http.StatusBadGateway)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	reg := ocitest.NewRegistry(t, ocitest.WithBasicAuth("olmops", pass), ocitest.WithMiddleware(echo))
	ref := reg.Ref("olmops/private-bundle:v1")
	kc, err := oci.KeychainFromDockerConfigJSON([]byte(dockerConfig(reg.Host, "olmops", pass)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = newPuller(t, oci.Options{Keychain: kc}).Bundle(t.Context(), ref)
	if err == nil {
		t.Fatal("no error")
	}
	basic := base64.StdEncoding.EncodeToString([]byte("olmops:" + pass))
	if msg := err.Error(); strings.Contains(msg, pass) || strings.Contains(msg, basic) || !strings.Contains(msg, "proxy rejected") {
		t.Errorf("error = %q, want the body without the credentials", msg)
	}
}
