package catalog

import (
	"errors"
	"fmt"
	"strings"
)

// digestLengths are the hex lengths of the digests distribution/reference
// accepts.
var digestLengths = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

// checkImageRef reports why ref is no image pull spec that
// reference.ParseNormalizedNamed accepts; "" is accepted (opm does not
// check empty pull specs).
func checkImageRef(ref string) error {
	if ref == "" {
		return nil
	}
	if len(ref) == 64 && isLowerHex(ref) {
		return fmt.Errorf("invalid repository name (%s), cannot specify 64-byte hexadecimal strings", ref)
	}
	domain, rest := splitDockerDomain(ref)
	remote := rest
	if i := strings.IndexRune(rest, ':'); i > -1 {
		remote = rest[:i]
	}
	if strings.ToLower(remote) != remote {
		return errors.New("invalid reference format: repository name must be lowercase")
	}
	// Most references name their registry: the full name is then ref
	// itself, and validating a catalog's thousands of images allocates
	// nothing for it.
	full := ref
	if !isJoined(ref, domain, rest) {
		full = domain + "/" + rest
	}
	name, d, ok := splitReference(full)
	if !ok {
		if _, _, ok := splitReference(strings.ToLower(full)); ok {
			return errors.New("invalid reference format: repository name must be lowercase")
		}
		return errors.New("invalid reference format")
	}
	if len(name) > 255 {
		return errors.New("repository name must not be more than 255 characters")
	}
	if d != "" {
		i := strings.Index(d, ":")
		alg, hex := d[:i], d[i+1:]
		n, ok := digestLengths[alg]
		switch {
		case !ok:
			return errors.New("unsupported digest algorithm")
		case len(hex) != n:
			return errors.New("invalid checksum digest length")
		case !isLowerHex(hex):
			return errors.New("invalid checksum digest format")
		}
	}
	return nil
}

// isJoined reports whether s is domain + "/" + rest.
func isJoined(s, domain, rest string) bool {
	return len(s) == len(domain)+1+len(rest) && s[:len(domain)] == domain && s[len(domain)] == '/' && s[len(domain)+1:] == rest
}

func splitDockerDomain(name string) (domain, rest string) {
	i := strings.IndexRune(name, '/')
	if i == -1 || (!strings.ContainsAny(name[:i], ".:") && name[:i] != "localhost" && strings.ToLower(name[:i]) == name[:i]) {
		domain, rest = "docker.io", name
	} else {
		domain, rest = name[:i], name[i+1:]
	}
	if domain == "index.docker.io" {
		domain = "docker.io"
	}
	if domain == "docker.io" && !strings.ContainsRune(rest, '/') {
		rest = "library/" + rest
	}
	return domain, rest
}
