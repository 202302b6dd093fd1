// Package oci pulls OLM bundle and catalog images from OCI registries.
//
// A Puller resolves an image reference to a digest, pulls the image by that
// digest and unpacks its layers (in order, honouring whiteouts) into a
// content-addressed cache on disk, so that an image is pulled once and a
// digest already cached costs no network at all. An entry appears in the
// cache whole or not at all: it is unpacked into a temporary folder and
// renamed into place.
//
// Unpacking refuses what could write or point outside the image's root
// (entries with ".." or absolute paths, symlinks and hardlinks that leave
// the root, device files) and images over the size or file-count limits;
// a refused image leaves nothing in the cache. Every error names the image
// and the reason, and errors.Is tells the reasons apart (ErrUnauthorized,
// ErrNotFound, ErrTimeout, ErrUnreachable, ErrUnsafe, ErrTooLarge, ErrNotBundle,
// ErrNotCatalog).
//
// Credentials come from a Keychain: by default REGISTRY_AUTH_FILE, then the
// docker config (DOCKER_CONFIG or ~/.docker/config.json) and podman's
// auth.json; KeychainFromDockerConfigJSON reads a Kubernetes pull secret.
// Mirrors rewrite repositories the way an ImageDigestMirrorSet does.
//
// Pinner turns image references into digest references once per run, for
// plans that must be reproducible.
package oci
