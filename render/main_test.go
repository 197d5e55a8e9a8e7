package render

import (
	"fmt"
	"os"
	"testing"
)

// testThread is the one GLFW thread of the test binary; displayErr says
// why GL tests cannot run (nil when they can).
var (
	testThread *Thread
	displayErr error
)

func TestMain(m *testing.M) {
	displayErr = Probe()
	if displayErr != nil {
		fmt.Fprintf(os.Stderr, "render: GL tests will be skipped: %v\n", displayErr)
	}
	testThread = StartThread()
	// Hold GLFW for the whole run, so the tests do not initialise and
	// terminate it (and reconnect to the display) once per test.
	if displayErr == nil {
		if err := acquireGLFW(testThread); err != nil {
			displayErr = err
			fmt.Fprintf(os.Stderr, "render: GL tests will be skipped: %v\n", err)
		}
	}
	code := m.Run()
	if displayErr == nil {
		releaseGLFW()
	}
	testThread.Stop()
	os.Exit(code)
}

// needDisplay skips a GL test when no display can be opened at all; run
// the tests through scripts/with-display (make test does) to get one.
func needDisplay(tb testing.TB) {
	tb.Helper()
	if displayErr != nil {
		tb.Skipf("no display, GL test skipped (run under scripts/with-display): %v", displayErr)
	}
}

// newTestOffscreen opens an Offscreen on the test thread, closed at the
// end of the test.
func newTestOffscreen(tb testing.TB, cfg Config) *Offscreen {
	tb.Helper()
	needDisplay(tb)
	o, err := NewOffscreen(testThread, cfg)
	if err != nil {
		tb.Fatalf("NewOffscreen: %v", err)
	}
	tb.Cleanup(func() {
		if err := o.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return o
}
