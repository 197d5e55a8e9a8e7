//go:build !linux

package main

import (
	"errors"

	"github.com/haptex/haptex/render"
)

var errNoXvfb = errors.New("no display (run under scripts/with-display)")

// ensureDisplay checks for a display; only Linux starts a private Xvfb.
func ensureDisplay() (stop func(), err error) {
	if err := render.Probe(); err != nil {
		return nil, errNoXvfb
	}
	return func() {}, nil
}
