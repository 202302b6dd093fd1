package gitsource

import "testing"

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
