//go:build !cgo

package calibrate

import (
	"errors"
	"strings"
)

// newDriver cannot load anything without cgo.
func newDriver() (Driver, error) {
	return nil, errors.New("cannot load the CUDA driver: this memplan was built without cgo (CGO_ENABLED=0), so it cannot measure a GPU; built-in profiles (" +
		strings.Join(BuiltinNames(), ", ") + ") and calibrated profile files still work with --gpu")
}
