package oci

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/olmops/olmops/internal/redact"
)

// Reasons an image cannot be used; test for them with errors.Is.
var (
	// ErrUnauthorized: the registry refused the credentials (401 or 403).
	ErrUnauthorized = errors.New("authentication failed")
	// ErrNotFound: the registry has no such repository, tag or digest.
	ErrNotFound = errors.New("not found")
	// ErrTimeout: the registry did not answer in time.
	ErrTimeout = errors.New("timed out")
	// ErrUnreachable: no connection to the registry could be made.
	ErrUnreachable = errors.New("registry unreachable")
	// ErrUnsafe: a layer holds an entry that could write or point outside
	// the image's root, or a device file.
	ErrUnsafe = errors.New("unsafe layer")
	// ErrTooLarge: the image is over the size or file-count limit.
	ErrTooLarge = errors.New("image too large")
	// ErrNotBundle: the image has no manifests/ folder.
	ErrNotBundle = errors.New("not a registry+v1 bundle")
	// ErrNotCatalog: the image has no file-based catalog directory.
	ErrNotCatalog = errors.New("not a file-based catalog")
)

// Error is a failure to resolve, pull or unpack one image.
type Error struct {
	// Image is the reference as the caller gave it.
	Image string
	// Reason is one of the Err* values above, or nil when the failure fits
	// none of them (a malformed reference, a disk error).
	Reason error
	// Err is what went wrong underneath.
	Err error
}

// Error names the image, the reason and what went wrong underneath. A
// registry's error body is part of the latter, and registries and proxies
// echo requests back, so the message goes through redact.Text: this is
// what logs, conditions and pull requests show.
func (e *Error) Error() string {
	var s string
	switch {
	case e.Reason == ErrNotBundle || e.Reason == ErrNotCatalog:
		s = fmt.Sprintf("image %s is %v: %v", e.Image, e.Reason, e.Err)
	case e.Reason != nil:
		s = fmt.Sprintf("image %s: %v: %v", e.Image, e.Reason, e.Err)
	default:
		s = fmt.Sprintf("image %s: %v", e.Image, e.Err)
	}
	return redact.Text(s)
}

// Unwrap exposes both the reason and the underlying error.
func (e *Error) Unwrap() []error {
	if e.Reason == nil {
		return []error{e.Err}
	}
	return []error{e.Reason, e.Err}
}

// imageError wraps err for image, classifying registry and network
// failures. An *Error is returned as it is.
func imageError(image string, err error) error {
	var ie *Error
	if errors.As(err, &ie) {
		return err
	}
	return &Error{Image: image, Reason: reason(err), Err: err}
}

// reason classifies a failure; nil when no reason fits.
func reason(err error) error {
	for _, r := range []error{ErrUnsafe, ErrTooLarge, ErrNotBundle, ErrNotCatalog} {
		if errors.Is(err, r) {
			return r
		}
	}
	var te *transport.Error
	if errors.As(err, &te) {
		switch te.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return ErrUnauthorized
		case http.StatusNotFound:
			return ErrNotFound
		}
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return ErrTimeout
	}
	var dns *net.DNSError
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) || errors.As(err, &dns) {
		return ErrUnreachable
	}
	return nil
}

// contentError says the image itself is at fault, so another mirror serving
// the same digest would fail the same way.
func contentError(err error) bool {
	r := reason(err)
	return r == ErrUnsafe || r == ErrTooLarge || r == ErrNotBundle || r == ErrNotCatalog
}

// reasoned is an error that carries its reason without repeating it in
// its message, so that Error prints the reason once.
type reasoned struct {
	reason error
	msg    string
}

func (r *reasoned) Error() string        { return r.msg }
func (r *reasoned) Is(target error) bool { return target == r.reason }

func reasonf(r error, format string, args ...any) error {
	return &reasoned{reason: r, msg: fmt.Sprintf(format, args...)}
}

// unsafeEntry reports a refused tar entry.
func unsafeEntry(name, why string) error {
	return reasonf(ErrUnsafe, "entry %q %s", name, why)
}
