package oci

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
)

// DefaultKeychain finds credentials where podman, skopeo and docker look:
// the file REGISTRY_AUTH_FILE names first, then the docker config
// (DOCKER_CONFIG or ~/.docker/config.json, with its credential helpers),
// then podman's auth.json. ggcr's own keychain reads REGISTRY_AUTH_FILE only
// when no docker config exists; the containers tools give it precedence.
func DefaultKeychain() (authn.Keychain, error) {
	file := os.Getenv("REGISTRY_AUTH_FILE")
	if file == "" {
		return authn.DefaultKeychain, nil
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return authn.DefaultKeychain, nil // as podman: no logins yet
	}
	if err != nil {
		return nil, fmt.Errorf("REGISTRY_AUTH_FILE: %w", err)
	}
	kc, err := KeychainFromDockerConfigJSON(data)
	if err != nil {
		return nil, fmt.Errorf("REGISTRY_AUTH_FILE %s: %w", file, err)
	}
	return authn.NewMultiKeychain(kc, authn.DefaultKeychain), nil
}

// KeychainFromDockerConfigJSON reads credentials in the docker config
// format: the .dockerconfigjson of a kubernetes.io/dockerconfigjson pull
// secret ({"auths": {...}}), a containers auth.json, or the older
// .dockercfg map without "auths". A key may be a registry (quay.io, with or
// without https:// and /v1/) or a registry path (quay.io/org), which then
// applies to the repositories below it; the longest match wins.
func KeychainFromDockerConfigJSON(data []byte) (authn.Keychain, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("docker config: %w", err)
	}
	auths := top
	raw, modern := top["auths"]
	if modern {
		auths = nil
		if err := json.Unmarshal(raw, &auths); err != nil {
			return nil, fmt.Errorf("docker config: auths: %w", err)
		}
	}
	kc := dockerConfig{}
	for key, raw := range auths {
		if !modern && !strings.HasPrefix(strings.TrimSpace(string(raw)), "{") {
			continue // a setting of a config without "auths", such as credsStore
		}
		var e struct {
			Auth          string `json:"auth"`
			Username      string `json:"username"`
			Password      string `json:"password"`
			IdentityToken string `json:"identitytoken"`
			RegistryToken string `json:"registrytoken"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("docker config: auths[%q]: %w", key, err)
		}
		cfg := authn.AuthConfig{Username: e.Username, Password: e.Password, IdentityToken: e.IdentityToken, RegistryToken: e.RegistryToken}
		if e.Auth != "" {
			user, pass, err := decodeAuth(e.Auth)
			if err != nil {
				return nil, fmt.Errorf("docker config: auths[%q].auth: %w", key, err)
			}
			cfg.Username, cfg.Password = user, pass
		}
		kc[normalizeAuthKey(key)] = cfg
	}
	return kc, nil
}

func decodeAuth(s string) (user, pass string, err error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return "", "", fmt.Errorf("not base64: %w", err)
	}
	user, pass, ok := strings.Cut(string(b), ":")
	if !ok {
		return "", "", fmt.Errorf("not user:password")
	}
	return user, pass, nil
}

// normalizeAuthKey turns the spellings docker config keys come in into
// registry[/path]: no scheme, no /v1/ or /v2/, Docker Hub as a reference
// names it.
func normalizeAuthKey(k string) string {
	k = strings.TrimPrefix(strings.TrimPrefix(k, "https://"), "http://")
	k = strings.TrimSuffix(k, "/")
	k = strings.TrimSuffix(strings.TrimSuffix(k, "/v1"), "/v2")
	host, rest, _ := strings.Cut(k, "/")
	switch host {
	case "docker.io", "registry-1.docker.io", name.DefaultRegistry:
		host = name.DefaultRegistry
	}
	if rest == "" {
		return host
	}
	return host + "/" + rest
}

// dockerConfig maps normalised keys to credentials.
type dockerConfig map[string]authn.AuthConfig

// Resolve implements authn.Keychain.
func (c dockerConfig) Resolve(target authn.Resource) (authn.Authenticator, error) {
	full := target.String()
	best := ""
	found := false
	for key := range c {
		match := key == target.RegistryStr() || key == full || strings.HasPrefix(full, key+"/")
		if match && (!found || len(key) > len(best)) {
			best, found = key, true
		}
	}
	if !found {
		return authn.Anonymous, nil
	}
	return authn.FromConfig(c[best]), nil
}
