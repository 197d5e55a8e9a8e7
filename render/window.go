package render

import (
	"context"
	"fmt"
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// Window is the interactive view: it draws the latest Frame at its own
// rate (at most Config.MaxFPS, and vsync where the display has it), lets
// the user orbit and zoom, and turns the mouse into a finger pair (see
// Pinch and Window.Pinch).
type Window struct {
	th    *Thread
	cfg   Config
	win   *glfw.Window
	r     *renderer
	t     *target
	ctl   *controller
	pinch AtomicPinch

	// Owned by the render thread between Run's calls.
	frame     Frame
	src       Source
	req       *request
	closeReq  bool
	err       error // a failure that ends Run
	fbw, fbh  int   // framebuffer size [px], kept by a callback (asking GLFW allocates)
	lastFrame time.Time
	interval  float64 // smoothed frame interval [s]
	closed    bool
}

// NewWindow opens the window on th with cfg (zero fields take their
// defaults). It is not drawn until Run.
func NewWindow(th *Thread, cfg Config) (*Window, error) {
	cfg = cfg.withDefaults()
	if err := acquireGLFW(th); err != nil {
		return nil, err
	}
	w := &Window{th: th, cfg: cfg}
	w.req = newRequest(w.step)
	var err error
	if cerr := th.Call(func() { err = w.open() }); cerr != nil {
		err = cerr
	}
	if err != nil {
		releaseGLFW()
		return nil, err
	}
	p := w.ctl.pinch
	p.Active = true
	w.pinch.Store(p)
	return w, nil
}

func (w *Window) open() error {
	win, c, err := openGLWindow(&w.cfg, w.cfg.Width, w.cfg.Height, true)
	if err != nil {
		return err
	}
	w.win = win
	glfw.SwapInterval(1)
	fw, fh := win.GetFramebufferSize()
	if fw <= 0 || fh <= 0 {
		fw, fh = w.cfg.Width, w.cfg.Height
	}
	if w.r, err = newRenderer(c, w.cfg); err == nil {
		w.cfg.Samples = samples(c, w.cfg.Samples)
		w.t, err = newTarget(c, fw, fh, w.cfg.Samples, true)
	}
	if err != nil {
		w.teardown()
		return err
	}
	w.r.help = true
	w.fbw, w.fbh = fw, fh
	w.ctl = newController(w.cfg.Camera, fw, fh)
	w.ctl.follow = !w.cfg.NoFollow
	if !w.cfg.NoMouse {
		w.r.pinch = &w.ctl.pinch
	}
	w.callbacks()
	return nil
}

func (w *Window) teardown() {
	makeCurrent(w.win)
	if w.t != nil {
		w.t.release()
	}
	if w.r != nil {
		w.r.release()
	}
	destroyWindow(w.win)
}

// Pinch is the mouse finger pair. The window stores a new Pinch whenever
// the user changes it (Active while the window is open); the rig reads it
// with Load, from any goroutine, each haptics tick.
func (w *Window) Pinch() *AtomicPinch { return &w.pinch }

// Run draws frames until the user closes the window (it returns nil) or
// ctx is done (it returns ctx.Err()). Before each frame it calls src, on
// the render thread, for the latest state. Run blocks; call it from any
// goroutine but one at a time.
func (w *Window) Run(ctx context.Context, src Source) error {
	if w.closed {
		return ErrClosed
	}
	period := time.Duration(float64(time.Second) / w.cfg.MaxFPS)
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	next := time.Now()
	w.src = src
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := w.th.call(w.req); err != nil {
			return err
		}
		if w.err != nil {
			return w.err
		}
		if w.closeReq {
			return nil
		}
		// Absolute deadlines, so the cap does not drift; after a stall,
		// start again from now rather than racing to catch up.
		next = next.Add(period)
		d := time.Until(next)
		if d < -period {
			next = time.Now()
			continue
		}
		if d <= 0 {
			continue
		}
		timer.Reset(d)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
	}
}

// step is one frame, on the render thread.
func (w *Window) step() {
	makeCurrent(w.win)
	glfw.PollEvents()
	if w.win.ShouldClose() {
		w.closeReq = true
		return
	}
	fw, fh := w.fbw, w.fbh
	if fw <= 0 || fh <= 0 {
		return // minimised
	}
	if fw != w.t.width || fh != w.t.height {
		if err := w.t.resize(fw, fh, w.cfg.Samples); err != nil {
			w.err = fmt.Errorf("render: resizing the window to %dx%d: %w", fw, fh, err)
			return
		}
		w.ctl.resize(fw, fh)
	}
	if w.src != nil {
		w.src(&w.frame)
	}
	w.ctl.aim(&w.frame)
	now := time.Now()
	if !w.lastFrame.IsZero() {
		dt := now.Sub(w.lastFrame).Seconds()
		if w.interval == 0 {
			w.interval = dt
		}
		w.interval += 0.1 * (dt - w.interval)
		if w.interval > 0 {
			w.r.fps = 1 / w.interval
		}
	}
	w.lastFrame = now
	w.t.bind()
	w.r.draw(&w.frame, w.ctl.cam, fw, fh)
	w.t.blitTo(0)
	w.win.SwapBuffers()
}

// callbacks connects GLFW input to the controller; they run inside
// PollEvents on the render thread.
func (w *Window) callbacks() {
	publish := func(changed bool) {
		if changed {
			p := w.ctl.pinch
			p.Active = true
			w.pinch.Store(p)
		}
	}
	// Cursor positions come in window coordinates; the controller works
	// in framebuffer pixels (they differ on high-density displays).
	toFB := func(x, y float64) (float64, float64) {
		ww, wh := w.win.GetSize()
		if ww <= 0 || wh <= 0 {
			return x, y
		}
		return x * float64(w.ctl.width) / float64(ww), y * float64(w.ctl.height) / float64(wh)
	}
	w.win.SetFramebufferSizeCallback(func(_ *glfw.Window, width, height int) {
		w.fbw, w.fbh = width, height
	})
	w.win.SetMouseButtonCallback(func(_ *glfw.Window, b glfw.MouseButton, a glfw.Action, _ glfw.ModifierKey) {
		var mb mouseButton
		switch b {
		case glfw.MouseButtonLeft:
			mb = buttonLeft
		case glfw.MouseButtonRight:
			mb = buttonRight
		case glfw.MouseButtonMiddle:
			mb = buttonMiddle
		default:
			return
		}
		if w.cfg.NoMouse && mb != buttonRight {
			return // the mouse does not move these fingers
		}
		if a == glfw.Press {
			x, y := toFB(w.win.GetCursorPos())
			publish(w.ctl.press(mb, x, y))
		} else if a == glfw.Release {
			w.ctl.release(mb)
		}
	})
	w.win.SetCursorPosCallback(func(_ *glfw.Window, x, y float64) {
		publish(w.ctl.move(toFB(x, y)))
	})
	w.win.SetScrollCallback(func(_ *glfw.Window, _, yoff float64) {
		// Without a mouse pair the wheel zooms on its own.
		zoom := w.cfg.NoMouse || w.win.GetKey(glfw.KeyLeftControl) == glfw.Press || w.win.GetKey(glfw.KeyRightControl) == glfw.Press ||
			w.win.GetKey(glfw.KeyLeftShift) == glfw.Press || w.win.GetKey(glfw.KeyRightShift) == glfw.Press
		publish(w.ctl.scroll(yoff, zoom))
	})
	w.win.SetKeyCallback(func(win *glfw.Window, k glfw.Key, _ int, a glfw.Action, _ glfw.ModifierKey) {
		if a == glfw.Release {
			return
		}
		if k == glfw.KeyEscape {
			win.SetShouldClose(true)
			return
		}
		act, ok := keyActions[k]
		if !ok || (a == glfw.Repeat && (act == actTogglePinch || act == actReset || act == actFrame || act == actGrid)) {
			return
		}
		if w.cfg.NoMouse && (act == actTogglePinch || act == actDepthIn || act == actDepthOut) {
			return
		}
		if act == actGrid {
			w.r.noGrid = !w.r.noGrid
			return
		}
		publish(w.ctl.do(act))
	})
}

var keyActions = map[glfw.Key]action{
	glfw.KeySpace:        actTogglePinch,
	glfw.KeyLeftBracket:  actDepthIn,
	glfw.KeyRightBracket: actDepthOut,
	glfw.KeyEqual:        actZoomIn,
	glfw.KeyKPAdd:        actZoomIn,
	glfw.KeyMinus:        actZoomOut,
	glfw.KeyKPSubtract:   actZoomOut,
	glfw.KeyLeft:         actOrbitLeft,
	glfw.KeyRight:        actOrbitRight,
	glfw.KeyUp:           actOrbitUp,
	glfw.KeyDown:         actOrbitDown,
	glfw.KeyF:            actFrame,
	glfw.KeyG:            actGrid,
	glfw.KeyR:            actReset,
	glfw.KeyHome:         actReset,
}

// Close closes the window and releases its GL objects; its Pinch turns
// inactive. Call it after Run has returned.
func (w *Window) Close() error {
	if w.closed {
		return nil
	}
	if err := w.th.Call(w.teardown); err != nil {
		return err
	}
	w.closed = true
	releaseGLFW()
	var p Pinch
	w.pinch.Load(&p)
	p.Active = false
	w.pinch.Store(p)
	return nil
}
