package apply

import (
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// objectError is a failure to apply one object.
type objectError struct {
	obj Entry
	err error
}

func (e *objectError) Error() string { return "apply " + e.obj.String() + ": " + e.err.Error() }

func (e *objectError) Unwrap() error { return e.err }

// reason is what a status says about err: the API server's message, which
// names the object when it is invalid, or else the object and the message
// (an admission webhook's denial names only itself).
func reason(err error) string {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return err.Error()
	}
	msg := status.Status().Message
	if msg == "" {
		msg = err.Error()
	}
	var oe *objectError
	if errors.As(err, &oe) && !strings.Contains(msg, `"`+oe.obj.Name+`"`) {
		return oe.obj.String() + ": " + msg
	}
	return msg
}
