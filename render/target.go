package render

import (
	"fmt"
	"image"

	"github.com/go-gl/gl/v4.1-core/gl"

	"github.com/haptex/haptex/render/internal/glw"
)

// target is the framebuffer the renderer draws into: a multisampled one
// when samples > 1, resolved into a single-sampled one that can be read
// back or presented. The window and Offscreen use the same path, so what a
// snapshot shows is what the window shows.
type target struct {
	gl                     glw.Context
	direct                 bool // single-sampled drawing goes straight to the window's framebuffer 0
	width, height, samples int
	ms, msColor, msDepth   uint32 // multisampled; zero when samples == 1
	fbo, color, depth      uint32 // single-sampled
	row                    []byte // one row of pixels, for flipping read-backs
}

// newTarget makes a target; direct (for a window) draws into framebuffer 0
// when there is no multisampling, which saves a copy per frame.
func newTarget(g glw.Context, width, height, samples int, direct bool) (*target, error) {
	t := &target{gl: g, direct: direct}
	if err := t.resize(width, height, samples); err != nil {
		t.release()
		return nil, err
	}
	return t, nil
}

func (t *target) resize(width, height, samples int) error {
	t.release()
	g := t.gl
	samples = max(1, min(samples, int(g.GetInteger(gl.MAX_SAMPLES))))
	t.width, t.height, t.samples = width, height, samples
	w, h := int32(width), int32(height)
	if samples > 1 {
		t.ms, t.msColor, t.msDepth = g.GenFramebuffer(), g.GenRenderbuffer(), g.GenRenderbuffer()
		g.BindRenderbuffer(gl.RENDERBUFFER, t.msColor)
		g.RenderbufferStorageMultisample(gl.RENDERBUFFER, int32(samples), gl.RGBA8, w, h)
		g.BindRenderbuffer(gl.RENDERBUFFER, t.msDepth)
		g.RenderbufferStorageMultisample(gl.RENDERBUFFER, int32(samples), gl.DEPTH_COMPONENT24, w, h)
		g.BindFramebuffer(gl.FRAMEBUFFER, t.ms)
		g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, t.msColor)
		g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, t.msDepth)
		if s := g.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_COMPLETE {
			return fmt.Errorf("render: %dx%d framebuffer with %d samples incomplete (status 0x%04x)", width, height, samples, s)
		}
	}
	if t.direct && samples == 1 {
		return nil
	}
	t.fbo, t.color, t.depth = g.GenFramebuffer(), g.GenRenderbuffer(), g.GenRenderbuffer()
	g.BindRenderbuffer(gl.RENDERBUFFER, t.color)
	g.RenderbufferStorage(gl.RENDERBUFFER, gl.RGBA8, w, h)
	g.BindRenderbuffer(gl.RENDERBUFFER, t.depth)
	g.RenderbufferStorage(gl.RENDERBUFFER, gl.DEPTH_COMPONENT24, w, h)
	g.BindFramebuffer(gl.FRAMEBUFFER, t.fbo)
	g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, t.color)
	g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, t.depth)
	if s := g.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_COMPLETE {
		return fmt.Errorf("render: %dx%d framebuffer incomplete (status 0x%04x)", width, height, s)
	}
	g.BindFramebuffer(gl.FRAMEBUFFER, 0)
	if e := g.GetError(); e != gl.NO_ERROR {
		return fmt.Errorf("render: GL error 0x%04x creating a %dx%d framebuffer with %d samples", e, width, height, samples)
	}
	t.row = make([]byte, 4*width)
	return nil
}

// bind makes the target the drawing framebuffer.
func (t *target) bind() {
	if t.ms != 0 {
		t.gl.BindFramebuffer(gl.FRAMEBUFFER, t.ms)
	} else {
		t.gl.BindFramebuffer(gl.FRAMEBUFFER, t.fbo) // 0 when direct
	}
}

// blitTo resolves or copies the drawing into framebuffer dst.
func (t *target) blitTo(dst uint32) {
	g := t.gl
	src := t.fbo
	if t.ms != 0 {
		src = t.ms
	}
	if src == dst {
		return
	}
	g.BindFramebuffer(gl.READ_FRAMEBUFFER, src)
	g.BindFramebuffer(gl.DRAW_FRAMEBUFFER, dst)
	w, h := int32(t.width), int32(t.height)
	g.BlitFramebuffer(0, 0, w, h, 0, 0, w, h, gl.COLOR_BUFFER_BIT, gl.NEAREST)
	g.BindFramebuffer(gl.FRAMEBUFFER, 0)
}

// read resolves the drawing and copies it into dst, which must be
// width x height; rows are flipped from GL's bottom-up order.
func (t *target) read(dst *image.RGBA) {
	g := t.gl
	t.blitTo(t.fbo)
	g.BindFramebuffer(gl.READ_FRAMEBUFFER, t.fbo)
	g.PixelStorei(gl.PACK_ALIGNMENT, 1)
	g.ReadPixels(dst.Pix, 0, 0, int32(t.width), int32(t.height), gl.RGBA, gl.UNSIGNED_BYTE)
	g.BindFramebuffer(gl.READ_FRAMEBUFFER, 0)
	n := 4 * t.width
	for y := 0; y < t.height/2; y++ {
		a := dst.Pix[y*dst.Stride : y*dst.Stride+n]
		b := dst.Pix[(t.height-1-y)*dst.Stride : (t.height-1-y)*dst.Stride+n]
		copy(t.row, a)
		copy(a, b)
		copy(b, t.row)
	}
}

func (t *target) release() {
	g := t.gl
	for _, f := range []*uint32{&t.ms, &t.fbo} {
		if *f != 0 {
			g.DeleteFramebuffer(*f)
			*f = 0
		}
	}
	for _, r := range []*uint32{&t.msColor, &t.msDepth, &t.color, &t.depth} {
		if *r != 0 {
			g.DeleteRenderbuffer(*r)
			*r = 0
		}
	}
}
