package render

import (
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// Offscreen renders Frames into images without showing a window: it draws
// into its own framebuffer in the GL context of a hidden window, so it
// needs a display (Probe) but shows nothing on it. Its methods may be
// called from any goroutine; they run one at a time on the Thread.
type Offscreen struct {
	th       *Thread
	renderer string // GL_RENDERER
	cfg      Config
	win      *glfw.Window
	r        *renderer
	t        *target
	closed   bool
}

// NewOffscreen prepares Config-sized rendering (zero fields take their
// defaults) on th. Close it when done.
func NewOffscreen(th *Thread, cfg Config) (*Offscreen, error) {
	cfg = cfg.withDefaults()
	if err := acquireGLFW(th); err != nil {
		return nil, err
	}
	o := &Offscreen{th: th, cfg: cfg}
	var err error
	if cerr := th.Call(func() { err = o.open() }); cerr != nil {
		err = cerr
	}
	if err != nil {
		releaseGLFW()
		return nil, err
	}
	return o, nil
}

func (o *Offscreen) open() error {
	win, c, err := openGLWindow(&o.cfg, 16, 16, false)
	if err != nil {
		return err
	}
	o.win = win
	o.renderer = c.GetString(gl.RENDERER)
	if o.r, err = newRenderer(c, o.cfg); err == nil {
		o.cfg.Samples = samples(c, o.cfg.Samples)
		o.t, err = newTarget(c, o.cfg.Width, o.cfg.Height, o.cfg.Samples, false)
	}
	if err != nil {
		o.teardown()
	}
	return err
}

func (o *Offscreen) teardown() {
	makeCurrent(o.win)
	if o.t != nil {
		o.t.release()
	}
	if o.r != nil {
		o.r.release()
	}
	destroyWindow(o.win)
}

// Bounds is the rectangle of the images Render returns.
func (o *Offscreen) Bounds() image.Rectangle { return image.Rect(0, 0, o.cfg.Width, o.cfg.Height) }

// Render draws f seen by cam into a new image.
func (o *Offscreen) Render(f *Frame, cam Camera) (*image.RGBA, error) {
	img := image.NewRGBA(o.Bounds())
	return img, o.RenderTo(img, f, cam)
}

// ErrClosed is returned by the methods of a closed Offscreen or Window.
var ErrClosed = errors.New("render: closed")

// RenderTo draws f seen by cam into dst, which must have o's Bounds.
func (o *Offscreen) RenderTo(dst *image.RGBA, f *Frame, cam Camera) error {
	if dst.Rect != o.Bounds() {
		return fmt.Errorf("render: image bounds %v, want %v", dst.Rect, o.Bounds())
	}
	var err error
	if cerr := o.th.Call(func() { err = o.renderTo(dst, f, cam) }); cerr != nil {
		return cerr
	}
	return err
}

func (o *Offscreen) renderTo(dst *image.RGBA, f *Frame, cam Camera) error {
	if o.closed {
		return ErrClosed
	}
	makeCurrent(o.win)
	o.t.bind()
	o.r.draw(f, cam, o.cfg.Width, o.cfg.Height)
	o.t.read(dst)
	if e := o.r.gl.GetError(); e != gl.NO_ERROR {
		return fmt.Errorf("render: GL error 0x%04x while drawing offscreen", e)
	}
	return nil
}

// Draw draws f seen by cam and waits for the GL to finish, without
// reading the image back: the work of one window frame, less the swap. It
// returns how long that took on the Thread, the hand-over to it left out.
func (o *Offscreen) Draw(f *Frame, cam Camera) (time.Duration, error) {
	var d time.Duration
	var err error
	if cerr := o.th.Call(func() {
		if o.closed {
			err = ErrClosed
			return
		}
		t0 := time.Now()
		o.drawOnly(f, cam)
		d = time.Since(t0)
	}); cerr != nil {
		return 0, cerr
	}
	return d, err
}

// Renderer is the GL's name for itself (GL_RENDERER), e.g. "llvmpipe
// (LLVM 15.0.6, 256 bits)".
func (o *Offscreen) Renderer() string { return o.renderer }

// Config is the configuration in effect: defaults filled in, Samples as
// the GL granted them.
func (o *Offscreen) Config() Config { return o.cfg }

// drawOnly is Draw on the GLFW thread.
func (o *Offscreen) drawOnly(f *Frame, cam Camera) {
	makeCurrent(o.win)
	o.t.bind()
	o.r.draw(f, cam, o.cfg.Width, o.cfg.Height)
	o.t.blitTo(o.t.fbo)
	o.r.gl.Finish()
}

// Close releases the GL objects and the hidden window.
func (o *Offscreen) Close() error {
	var already bool
	if err := o.th.Call(func() {
		already = o.closed
		if !already {
			o.teardown()
			o.closed = true
		}
	}); err != nil {
		return err
	}
	if !already {
		releaseGLFW()
	}
	return nil
}

// Snapshot renders f once, seen by cfg.Camera (aimed at the finger pair
// unless cfg.NoFollow), without a visible window, and writes it to w as
// format: "png", or "jpeg" (quality 92). It runs on the Thread of the
// process's open Windows and Offscreens, or on one of its own when there
// are none.
func Snapshot(w io.Writer, cfg Config, f *Frame, format string) error {
	if format != "png" && format != "jpeg" {
		return fmt.Errorf("render: snapshot format %q: want png or jpeg", format)
	}
	th, release, err := acquireGLFWShared()
	if err != nil {
		return err
	}
	defer release()
	o, err := NewOffscreen(th, cfg)
	if err != nil {
		return err
	}
	cam := o.cfg.Camera
	if !o.cfg.NoFollow {
		cam = cam.AimedAt(f)
	}
	img, err := o.Render(f, cam)
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if format == "jpeg" {
		err = jpeg.Encode(w, img, &jpeg.Options{Quality: 92})
	} else {
		err = png.Encode(w, img)
	}
	if err != nil {
		return fmt.Errorf("render: encoding %s: %w", format, err)
	}
	return nil
}
