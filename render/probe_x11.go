//go:build (linux || freebsd || netbsd || openbsd) && !wayland

package render

/*
#cgo LDFLAGS: -lX11
#include <X11/Xlib.h>
*/
import "C"

import (
	"fmt"
	"time"
)

// probe opens and closes a connection to the X display that GLFW would
// use (libX11 reads DISPLAY); go-gl's glfw.Init does not report a failure
// to open it, so this check comes first. A server that refuses a
// connection now and then (Xvfb on a loaded machine does) gets a few tries.
func probe() error {
	name := C.GoString(C.XDisplayName(nil))
	if name == "" {
		return fmt.Errorf("%w: DISPLAY is not set", ErrNoDisplay)
	}
	for attempt := 1; ; attempt++ {
		if d := C.XOpenDisplay(nil); d != nil {
			C.XCloseDisplay(d)
			return nil
		}
		if attempt == connectTries {
			return fmt.Errorf("%w: cannot open X display %q (%d tries)", ErrNoDisplay, name, attempt)
		}
		time.Sleep(retryDelay(attempt))
	}
}
