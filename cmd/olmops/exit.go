package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// Exit codes of every olmops command.
const (
	exitOK       = 0
	exitFindings = 1
	exitError    = 2
	// exitHeld is apply's: nothing failed, but a plan was held back, so
	// the cluster is not yet what the branch says.
	exitHeld = 3
)

// errFindings says a command completed and reported problems in its input
// (an invalid catalog). The command has already printed them.
var errFindings = errors.New("findings reported")

// errHeld says a command did all it could, and some of what it was asked
// for waits on something outside it (an operator's Upgradeable=False, a
// permission, a dependency). The command has already said what.
var errHeld = errors.New("held")

// usageError is a command line that cannot be run: a wrong flag, argument
// count or value.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitCode maps an error returned by a command to the process exit code:
// findings are 1; usage, I/O and every other error 2; a hold 3;
// olmops-controller's own code when it ran the command.
func exitCode(err error) int {
	var child *childExit
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &child):
		return child.code
	case errors.Is(err, errFindings):
		return exitFindings
	case errors.Is(err, errHeld):
		return exitHeld
	default:
		return exitError
	}
}

// args wraps a cobra argument check so that its failure is a usage error.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return &usageError{msg: err.Error()}
		}
		return nil
	}
}

// oneOf checks a flag value against the allowed ones.
func oneOf(flag, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return usageErrorf("invalid --%s %q: want one of %v", flag, value, allowed)
}
