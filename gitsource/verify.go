package gitsource

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	pgperrors "github.com/ProtonMail/go-crypto/openpgp/errors"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/go-git/go-git/v5/plumbing"
)

// KeyRing is one file of trusted public keys, named for messages (the
// Secret key or file it came from).
type KeyRing struct {
	Name string
	// Armored is the file's text: armored OpenPGP public keys, or for
	// Format SSH, authorized_keys or allowed_signers lines.
	Armored string
	// Format says which kind of keys Armored holds.
	Format KeyFormat
}

// KeyFormat is the kind of keys a KeyRing holds.
type KeyFormat int

const (
	// OpenPGP key rings verify commits signed with gpg (the default).
	OpenPGP KeyFormat = iota
	// SSH key rings verify commits signed with gpg.format=ssh.
	SSH
)

func (f KeyFormat) String() string {
	if f == SSH {
		return "SSH"
	}
	return "OpenPGP"
}

// KeyFormatOf tells what kind of keys text holds: OpenPGP when it is an
// armored OpenPGP block, SSH otherwise.
func KeyFormatOf(text string) KeyFormat {
	if strings.Contains(text, "-----BEGIN PGP PUBLIC KEY BLOCK-----") {
		return OpenPGP
	}
	return SSH
}

// UnverifiedError says why a commit's signature was not accepted: it is
// unsigned, signed by a key none of the key rings hold, or its signature
// does not match its content.
type UnverifiedError struct {
	Commit plumbing.Hash
	Reason string
}

func (e *UnverifiedError) Error() string {
	return fmt.Sprintf("commit %s is not verified: %s", e.Commit, e.Reason)
}

// Signer is who signed a verified commit.
type Signer struct {
	// Identity is the signing key's primary user ID.
	Identity string
	// KeyID is the signing key's primary key ID, in hex.
	KeyID string
	// KeyRing names the key ring that held the key.
	KeyRing string
}

// ParseKeyRings checks that each key ring holds at least one public key
// of its format, so that a broken key file is reported as itself and not
// as a commit signed by an unknown key.
func ParseKeyRings(keys []KeyRing) error {
	if len(keys) == 0 {
		return errors.New("no OpenPGP or SSH public keys to verify commits with")
	}
	for _, k := range keys {
		if k.Format == SSH {
			if _, err := parseSSHKeys(k.Armored); err != nil {
				return fmt.Errorf("key ring %s: %w", k.Name, err)
			}
			continue
		}
		list, err := openpgp.ReadArmoredKeyRing(strings.NewReader(k.Armored))
		if err != nil {
			return fmt.Errorf("key ring %s: %w", k.Name, err)
		}
		if len(list) == 0 {
			return fmt.Errorf("key ring %s: no keys", k.Name)
		}
	}
	return nil
}

// VerifyCommit checks that commit h carries an OpenPGP or SSH signature
// made by a key of one of keys, and returns who signed it. An SSH
// signature must be in git's namespace and is checked against the SSH
// key rings only, an OpenPGP one against the OpenPGP key rings only. A commit that does not
// verify is an *UnverifiedError; a key ring that does not parse, or a
// commit that cannot be read, is another error.
func (r *Repo) VerifyCommit(ctx context.Context, h plumbing.Hash, keys []KeyRing) (*Signer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := ParseKeyRings(keys); err != nil {
		return nil, err
	}
	r.mu.Lock()
	c, err := r.r.CommitObject(h)
	r.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("gitsource: commit %s: %w", h, ErrNotFound)
	}
	sig := strings.TrimSpace(c.PGPSignature)
	switch {
	case sig == "":
		return nil, &UnverifiedError{Commit: h, Reason: "it is not signed"}
	case strings.HasPrefix(sig, sshSignatureHeader):
		return verifySSH(c, sig, keys)
	case !strings.HasPrefix(sig, pgpSignatureHeader):
		// X.509 signatures share the gpgsig header; saying "unknown
		// key" of them would send people after the wrong key.
		return nil, &UnverifiedError{Commit: h, Reason: "its signature is neither OpenPGP nor SSH (X.509 signatures are not supported)"}
	}
	var bad error
	pgp := false
	for _, k := range keys {
		if k.Format != OpenPGP {
			continue
		}
		pgp = true
		// Each key ring is tried alone so that the signer is named with
		// the file that vouched for it.
		e, err := c.Verify(k.Armored)
		if err == nil {
			return signer(e, k.Name), nil
		}
		if !errors.Is(err, pgperrors.ErrUnknownIssuer) && bad == nil {
			bad = fmt.Errorf("key ring %s: %w", k.Name, err)
		}
	}
	if bad != nil {
		return nil, &UnverifiedError{Commit: h, Reason: "its signature does not verify: " + bad.Error()}
	}
	if !pgp {
		return nil, &UnverifiedError{Commit: h, Reason: fmt.Sprintf("it is signed by OpenPGP key %s, and no OpenPGP keys are configured", issuer(sig))}
	}
	return nil, &UnverifiedError{Commit: h, Reason: fmt.Sprintf("it is signed by key %s, which none of the configured key rings hold", issuer(sig))}
}

// issuer is the key ID a signature names, for the message about an
// unknown key; "unknown" when the signature does not say.
func issuer(sig string) string {
	block, err := armor.Decode(strings.NewReader(sig))
	if err != nil {
		return "unknown"
	}
	p, err := packet.Read(block.Body)
	if s, ok := p.(*packet.Signature); err == nil && ok && s.IssuerKeyId != nil {
		return fmt.Sprintf("%016X", *s.IssuerKeyId)
	}
	return "unknown"
}

func signer(e *openpgp.Entity, ring string) *Signer {
	s := &Signer{KeyRing: ring}
	if e.PrimaryKey != nil {
		s.KeyID = e.PrimaryKey.KeyIdString()
	}
	if id := e.PrimaryIdentity(); id != nil {
		s.Identity = id.Name
	}
	return s
}
