package render

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/haptex/haptex/render/internal/glw"
)

// ErrNoDisplay means no window system can be reached: on Linux, no X
// display can be opened (DISPLAY unset, or its server not running). Windows
// and offscreen images both need one; on a machine without a screen, run
// under Xvfb (scripts/with-display, xvfb-run).
var ErrNoDisplay = errors.New("render: no display")

// Probe reports whether a display can be opened, so a caller can choose a
// window, offscreen rendering, or neither before creating anything. Its
// error wraps ErrNoDisplay and names the display it tried.
func Probe() error { return probe() }

// glfwUse counts the Windows and Offscreens that hold GLFW initialised, on
// the Thread that initialised it.
var glfwUse struct {
	mu     sync.Mutex
	users  int
	thread *Thread
}

// acquireGLFW initialises GLFW on th unless it already is. All users must
// share one Thread. It is called off th.
func acquireGLFW(th *Thread) error {
	glfwUse.mu.Lock()
	defer glfwUse.mu.Unlock()
	if glfwUse.users > 0 {
		if glfwUse.thread != th {
			return errOtherThread
		}
		glfwUse.users++
		return nil
	}
	if err := Probe(); err != nil {
		return err
	}
	var err error
	if cerr := th.Call(func() { err = initGLFW() }); cerr != nil {
		return cerr
	}
	if err != nil {
		return fmt.Errorf("render: initialising GLFW: %w", err)
	}
	glfwUse.users, glfwUse.thread = 1, th
	return nil
}

var errOtherThread = errors.New("render: GLFW already runs on another Thread; use one Thread for all windows and offscreen renderers")

// acquireGLFWShared joins GLFW on the Thread it runs on, or, when it does
// not run, starts a Thread and initialises GLFW there. release undoes it
// (and stops that Thread if it started it).
func acquireGLFWShared() (th *Thread, release func(), err error) {
	for {
		glfwUse.mu.Lock()
		if glfwUse.users > 0 {
			glfwUse.users++
			th = glfwUse.thread
			glfwUse.mu.Unlock()
			return th, releaseGLFW, nil
		}
		glfwUse.mu.Unlock()
		th = StartThread()
		err := acquireGLFW(th)
		if err == nil {
			return th, func() { releaseGLFW(); th.Stop() }, nil
		}
		th.Stop()
		if err != errOtherThread { // else someone started GLFW meanwhile: join them
			return nil, nil, err
		}
	}
}

// Connections to the display are tried connectTries times, retryDelay
// apart: Xvfb on a loaded machine refuses about one in ten.
const connectTries = 5

func retryDelay(attempt int) time.Duration { return time.Duration(attempt) * 20 * time.Millisecond }

// initGLFW initialises GLFW, retrying when it cannot open the display. It
// runs on the GLFW thread. go-gl's glfw.Init only logs that failure, so
// success is checked with a call that needs an initialised GLFW.
func initGLFW() error {
	for attempt := 1; ; attempt++ {
		err := glfwCall(func() error {
			if err := glfw.Init(); err != nil {
				return err
			}
			glfw.GetTime()
			return nil
		})
		if err == nil || attempt == connectTries {
			return err
		}
		time.Sleep(retryDelay(attempt))
	}
}

// releaseGLFW undoes one acquireGLFW; the last one terminates GLFW.
func releaseGLFW() {
	glfwUse.mu.Lock()
	defer glfwUse.mu.Unlock()
	glfwUse.users--
	if glfwUse.users == 0 {
		glfwUse.thread.Call(func() {
			current = nil
			glfwCall(func() error { glfw.Terminate(); return nil })
		})
		glfwUse.thread = nil
	}
}

// glfwCall runs f, turning the panics go-gl/glfw raises for GLFW errors
// into errors.
func glfwCall(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(*glfw.Error); ok {
				err = e
				return
			}
			panic(r)
		}
	}()
	return f()
}

// current is the window whose GL context is current on the GLFW thread;
// only that thread reads or writes it.
var current *glfw.Window

func makeCurrent(w *glfw.Window) {
	if current != w {
		w.MakeContextCurrent()
		current = w
	}
}

// Niceness of the render thread unless Config.NormalPriority.
const renderNice = 10

// openGLWindow creates a window with an OpenGL 4.1 core context, makes the
// context current and loads GL. It runs on the GLFW thread, whose
// niceness it first sets for cfg (a software GL's threads inherit it).
func openGLWindow(cfg *Config, width, height int, visible bool) (*glfw.Window, glw.Context, error) {
	if cfg.NormalPriority {
		setNice(0)
	} else {
		setNice(renderNice)
	}
	title := cfg.Title
	var win *glfw.Window
	err := glfwCall(func() error {
		glfw.DefaultWindowHints()
		glfw.WindowHint(glfw.ContextVersionMajor, 4)
		glfw.WindowHint(glfw.ContextVersionMinor, 1)
		glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
		glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
		glfw.WindowHint(glfw.Samples, 0) // the renderer multisamples in its own framebuffer
		glfw.WindowHint(glfw.Visible, boolHint(visible))
		var err error
		win, err = glfw.CreateWindow(width, height, title, nil, nil)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("render: creating a window with an OpenGL 4.1 core context: %w", err)
	}
	if win == nil {
		// go-gl/glfw logs platform errors and returns no error with them.
		return nil, nil, errors.New("render: creating a window with an OpenGL 4.1 core context failed (platform error, see log)")
	}
	makeCurrent(win)
	if err := glw.Init(); err != nil {
		destroyWindow(win)
		return nil, nil, fmt.Errorf("render: %w", err)
	}
	return win, glw.New(), nil
}

func destroyWindow(w *glfw.Window) {
	if current == w {
		glfw.DetachCurrentContext()
		current = nil
	}
	w.Destroy()
}

func boolHint(b bool) int {
	if b {
		return glfw.True
	}
	return glfw.False
}

// samples resolves Config.Samples for the context c: 0 asks for 4 on a
// GPU and 1 on a software rasteriser.
func samples(c glw.Context, requested int) int {
	if requested > 0 {
		return requested
	}
	r := strings.ToLower(c.GetString(gl.RENDERER))
	for _, sw := range []string{"llvmpipe", "softpipe", "swrast", "swiftshader"} {
		if strings.Contains(r, sw) {
			return 1
		}
	}
	return 4
}
