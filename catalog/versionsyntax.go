package catalog

import (
	"errors"

	"github.com/olmops/olmops/catalog/semver"
)

// checkRange reports why s is not a classic (blang) range, in the words
// opm prints; the resolver evaluates skipRange with the same parser.
func checkRange(s string) error {
	_, err := semver.ParseClassicRange(s)
	if re := (*semver.RangeError)(nil); errors.As(err, &re) {
		return errors.New(re.Blang())
	}
	return err
}
