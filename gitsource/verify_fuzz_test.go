package gitsource

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// The gpgsig header is whatever the pusher wrote: naming its issuer must
// never panic, whatever the armor and packets hold.
func FuzzIssuer(f *testing.F) {
	f.Add("-----BEGIN PGP SIGNATURE-----\n\niQEzBAABCAAdFiEE\n=abcd\n-----END PGP SIGNATURE-----\n")
	f.Add("-----BEGIN PGP SIGNATURE-----\n\n\n-----END PGP SIGNATURE-----\n")
	f.Add("-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n")
	f.Fuzz(func(t *testing.T, sig string) {
		if issuer(sig) == "" {
			t.Fatal("issuer is empty")
		}
	})
}

// An SSH signature in the gpgsig header and the lines of a .sshpub key
// are untrusted text: neither may panic, a key file that parses lists a
// key, and no signature made up by the fuzzer verifies against a key whose
// private half nobody holds.
func FuzzVerifySSH(f *testing.F) {
	const pub = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGfDygEFbC5hLBbVD36sfLywKXGp8v324UPrzYeQgQWo release@example.com"
	f.Add("-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQ==\n-----END SSH SIGNATURE-----\n", pub)
	f.Add("-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n", "release@example.com "+pub)
	f.Add("", "# comment\n\n"+pub+"\ncert-authority "+pub)
	// A real signature (ssh-keygen -Y sign -n git) of another payload, by
	// a key listed or not.
	const real = "-----BEGIN SSH SIGNATURE-----\n" +
		"U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAg0+xl60GXNmoZ2kTtHCvg637qxx\n" +
		"q+XFVpfqxdjem/GrsAAAADZ2l0AAAAAAAAAAZzaGE1MTIAAABTAAAAC3NzaC1lZDI1NTE5\n" +
		"AAAAQHiNXt6qLvTsy9r/B2ipuLAIcm3wGVmU6j9bdFpQ8iev0j1tGskc5vh+nNCc1XWiuq\n" +
		"77Dj50qF3CsGXhkwNUNww=\n" +
		"-----END SSH SIGNATURE-----\n"
	f.Add(real, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINPsZetBlzZqGdpE7Rwr4Ot+6scavlxVaX6sXY3pvxq7 fuzz")
	f.Add(real, pub)
	f.Fuzz(func(t *testing.T, sig, keys string) {
		if listed, err := parseSSHKeys(keys); err == nil && len(listed) == 0 {
			t.Fatal("parseSSHKeys: no error and no keys")
		}
		c := &object.Commit{Message: "m", PGPSignature: sig}
		rings := []KeyRing{{Name: "k.sshpub", Armored: keys, Format: SSH}, {Name: "p.sshpub", Armored: pub, Format: SSH}}
		if s, err := verifySSH(c, sig, rings); err == nil {
			t.Fatalf("a made-up signature verified: %+v", s)
		}
	})
}
