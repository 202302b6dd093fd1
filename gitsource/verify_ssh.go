package gitsource

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
)

// sshNamespace is the SSHSIG namespace git signs commits and tags in; a
// signature made for another namespace (a file, an SSH login) is not a
// commit signature, whatever its key.
const sshNamespace = "git"

const (
	pgpSignatureHeader = "-----BEGIN PGP SIGNATURE-----"
	sshSignatureHeader = "-----BEGIN SSH SIGNATURE-----"
)

// sshKey is one trusted SSH public key and who it stands for.
type sshKey struct {
	pub ssh.PublicKey
	// who is the line's comment, or its principals when the line is in
	// git's allowed_signers form.
	who string
}

// parseSSHKeys reads text as authorized_keys lines (Flux's .sshpub keys)
// or git's allowed_signers lines ("principals keytype key"). Options
// that would narrow what a key may sign (namespaces=, valid-after=,
// cert-authority) are refused rather than ignored, so that no key is
// trusted more widely than the file says.
func parseSSHKeys(text string) ([]sshKey, error) {
	var keys []sshKey
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pub, comment, options, _, err := ssh.ParseAuthorizedKey([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		who := comment
		for _, o := range options {
			if strings.Contains(o, "=") || strings.EqualFold(o, "cert-authority") {
				return nil, fmt.Errorf("line %d: option %q is not supported; list the signing keys themselves", i+1, o)
			}
			who = o
		}
		if _, ok := pub.(*ssh.Certificate); ok {
			return nil, fmt.Errorf("line %d: an SSH certificate is not a signing key", i+1)
		}
		keys = append(keys, sshKey{pub: pub, who: who})
	}
	if len(keys) == 0 {
		return nil, errors.New("no SSH public keys")
	}
	return keys, nil
}

// verifySSH checks the SSH signature sig of commit c against the SSH key
// rings of keys: the key that made it must be listed, and the signature
// must be over c's content in the "git" namespace.
func verifySSH(c *object.Commit, sig string, keys []KeyRing) (*Signer, error) {
	s, err := sshsig.Unarmor([]byte(sig))
	if err != nil {
		return nil, &UnverifiedError{Commit: c.Hash, Reason: "its SSH signature does not parse: " + err.Error()}
	}
	fp := ssh.FingerprintSHA256(s.PublicKey)
	configured := false
	for _, ring := range keys {
		if ring.Format != SSH {
			continue
		}
		configured = true
		listed, err := parseSSHKeys(ring.Armored)
		if err != nil {
			return nil, fmt.Errorf("key ring %s: %w", ring.Name, err)
		}
		for _, k := range listed {
			if ssh.FingerprintSHA256(k.pub) != fp {
				continue
			}
			if err := verifySSHPayload(c, s, k.pub); err != nil {
				return nil, &UnverifiedError{Commit: c.Hash, Reason: fmt.Sprintf("its SSH signature by key %s does not verify: %v", fp, err)}
			}
			return &Signer{Identity: k.who, KeyID: fp, KeyRing: ring.Name}, nil
		}
	}
	if !configured {
		return nil, &UnverifiedError{Commit: c.Hash, Reason: fmt.Sprintf("it is signed by SSH key %s, and no SSH keys are configured", fp)}
	}
	return nil, &UnverifiedError{Commit: c.Hash, Reason: fmt.Sprintf("it is signed by SSH key %s, which none of the configured key rings hold", fp)}
}

// verifySSHPayload checks s against what git signed: the commit as
// encoded without its gpgsig header.
func verifySSHPayload(c *object.Commit, s *sshsig.Signature, pub ssh.PublicKey) error {
	obj := &plumbing.MemoryObject{}
	if err := c.EncodeWithoutSignature(obj); err != nil {
		return err
	}
	r, err := obj.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	return sshsig.Verify(r, s, pub, s.HashAlgorithm, sshNamespace)
}
