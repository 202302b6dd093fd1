package catalog

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// The grammar of image references (github.com/distribution/reference, as
// vendored by containers/image, which opm uses).
var (
	refPathComponent = `[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*`
	refDomainComp    = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	refHost          = `(?:` + refDomainComp + `(?:\.` + refDomainComp + `)*|\[(?:[a-fA-F0-9:]+)\])`
	refName          = `(?:` + refHost + `(?::[0-9]+)?/)?` + refPathComponent + `(?:/` + refPathComponent + `)*`
	refTag           = `[\w][\w.-]{0,127}`
	refDigest        = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}`
	referenceRE      = regexp.MustCompile(`^(` + refName + `)(?::(` + refTag + `))?(?:@(` + refDigest + `))?$`)
	identifierRE     = regexp.MustCompile(`^[a-f0-9]{64}$`)
	digestLengths    = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}
	lowerHexRE       = regexp.MustCompile(`^[a-f0-9]+$`)
)

// checkImageRef reports why ref is no image pull spec that
// reference.ParseNormalizedNamed accepts; "" is accepted (opm does not
// check empty pull specs).
func checkImageRef(ref string) error {
	if ref == "" {
		return nil
	}
	if identifierRE.MatchString(ref) {
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
	full := domain + "/" + rest
	m := referenceRE.FindStringSubmatch(full)
	if m == nil {
		if referenceRE.MatchString(strings.ToLower(full)) {
			return errors.New("invalid reference format: repository name must be lowercase")
		}
		return errors.New("invalid reference format")
	}
	if len(m[1]) > 255 {
		return errors.New("repository name must not be more than 255 characters")
	}
	if d := m[3]; d != "" {
		i := strings.Index(d, ":")
		alg, hex := d[:i], d[i+1:]
		n, ok := digestLengths[alg]
		switch {
		case !ok:
			return errors.New("unsupported digest algorithm")
		case len(hex) != n:
			return errors.New("invalid checksum digest length")
		case !lowerHexRE.MatchString(hex):
			return errors.New("invalid checksum digest format")
		}
	}
	return nil
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
