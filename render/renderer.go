package render

import (
	"fmt"
	"image/color"
	"math"

	"github.com/go-gl/gl/v4.1-core/gl"

	"github.com/haptex/haptex/render/internal/glw"
	"github.com/haptex/haptex/sim"
)

// renderer owns the GL objects of one context and draws Frames into the
// framebuffer bound by its caller. It runs on the GLFW thread only.
// Drawing a frame allocates nothing: matrices and uniforms go through the
// scratch slices below, text through preallocated lines.
type renderer struct {
	gl  glw.Context
	cfg Config

	cloth clothGPU
	solid struct {
		prog                                         uint32
		uModelView, uProj, uNormalMat, uColor, uSpec int32
	}
	sphere, cylinder, cone gpuMesh
	flat                   struct {
		prog, vao, vbo, atlas uint32
		uViewport, uAtlas     int32
	}
	batch batch2D

	view, proj mat4
	m16, m9    []float32
	lines      [16]line

	// Set by the window between frames: its frame rate, the mouse pair,
	// and whether to print the controls.
	fps    float64
	pinch  *Pinch
	help   bool
	noGrid bool // the marking grid is hidden (Config.NoGrid, or G in the window)
}

type gpuMesh struct {
	vao, vbo, ebo uint32
	count         int32
}

// Scene colours, sRGB.
var (
	fingerColour = [sim.NumFingers]color.NRGBA{
		sim.Thumb:       {R: 240, G: 140, B: 40, A: 255},
		sim.IndexFinger: {R: 60, G: 150, B: 240, A: 255},
	}
	arrowColour = color.NRGBA{R: 255, G: 215, B: 30, A: 255}
	standColour = color.NRGBA{R: 150, G: 155, B: 165, A: 255}
	background  = [3]float32{0.13, 0.14, 0.17} // a plain clear: a gradient quad costs a software rasteriser ~2 ms
	textColour  = [4]float32{0.92, 0.92, 0.92, 1}
	warnColour  = [4]float32{1, 0.4, 0.3, 1}
	panelColour = [4]float32{0, 0, 0, 0.45}
)

const (
	ghostAlpha  = 0.4   // opacity of finger parts hidden behind the cloth
	minForceN   = 0.005 // forces below this draw no arrow [N]
	maxArrowM   = 0.15  // longest force arrow [m]
	standHalfW  = 0.19  // the stand's posts stand at x = ±standHalfW [m]
	standFloorY = -0.02 // [m]
)

func newRenderer(c glw.Context, cfg Config) (*renderer, error) {
	r := &renderer{
		gl: c, cfg: cfg,
		cloth: clothGPU{gl: c},
		batch: newBatch2D(),
		m16:   make([]float32, 16),
		m9:    make([]float32, 9),
	}
	for i := range r.lines {
		r.lines[i] = make(line, 0, 160)
	}
	r.noGrid = cfg.NoGrid
	if err := r.init(); err != nil {
		r.release()
		return nil, err
	}
	return r, nil
}

func (r *renderer) init() error {
	g := r.gl
	var err error
	if err = r.cloth.init(r); err != nil {
		return err
	}
	if r.solid.prog, err = r.program("solid", solidVS, solidFS); err != nil {
		return err
	}
	if r.flat.prog, err = r.program("flat", flatVS, flatFS); err != nil {
		return err
	}
	s := &r.solid
	s.uModelView = g.GetUniformLocation(s.prog, "uModelView")
	s.uProj = g.GetUniformLocation(s.prog, "uProj")
	s.uNormalMat = g.GetUniformLocation(s.prog, "uNormalMat")
	s.uColor = g.GetUniformLocation(s.prog, "uColor")
	s.uSpec = g.GetUniformLocation(s.prog, "uSpec")
	r.flat.uViewport = g.GetUniformLocation(r.flat.prog, "uViewport")
	r.flat.uAtlas = g.GetUniformLocation(r.flat.prog, "uAtlas")

	r.sphere = r.upload(unitSphere(24, 16))
	r.cylinder = r.upload(unitCylinder(24))
	r.cone = r.upload(unitCone(24))

	f := &r.flat
	f.vao, f.vbo = g.GenVertexArray(), g.GenBuffer()
	g.BindVertexArray(f.vao)
	g.BindBuffer(gl.ARRAY_BUFFER, f.vbo)
	g.BufferDataSize(gl.ARRAY_BUFFER, 4*cap(r.batch.v), gl.STREAM_DRAW)
	const stride = 4 * floatsPerVertex2D
	g.VertexAttribPointer(0, 2, gl.FLOAT, false, stride, 0)
	g.VertexAttribPointer(1, 2, gl.FLOAT, false, stride, 8)
	g.VertexAttribPointer(2, 4, gl.FLOAT, false, stride, 16)
	for i := uint32(0); i < 3; i++ {
		g.EnableVertexAttribArray(i)
	}
	g.BindVertexArray(0)

	atlas := fontAtlas()
	f.atlas = g.GenTexture()
	g.BindTexture(gl.TEXTURE_2D, f.atlas)
	g.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.R8, int32(atlas.Rect.Dx()), int32(atlas.Rect.Dy()), gl.RED, gl.UNSIGNED_BYTE, atlas.Pix)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)

	if e := g.GetError(); e != gl.NO_ERROR {
		return fmt.Errorf("render: GL error 0x%04x while creating the renderer's objects", e)
	}
	return nil
}

func (r *renderer) program(name, vs, fs string) (uint32, error) {
	g := r.gl
	compile := func(kind uint32, src, what string) (uint32, error) {
		s := g.CreateShader(kind)
		g.ShaderSource(s, src)
		g.CompileShader(s)
		if g.GetShaderi(s, gl.COMPILE_STATUS) == gl.FALSE {
			log := g.GetShaderInfoLog(s)
			g.DeleteShader(s)
			return 0, fmt.Errorf("render: compiling the %s %s shader: %s", name, what, log)
		}
		return s, nil
	}
	v, err := compile(gl.VERTEX_SHADER, vs, "vertex")
	if err != nil {
		return 0, err
	}
	defer g.DeleteShader(v)
	f, err := compile(gl.FRAGMENT_SHADER, fs, "fragment")
	if err != nil {
		return 0, err
	}
	defer g.DeleteShader(f)
	p := g.CreateProgram()
	g.AttachShader(p, v)
	g.AttachShader(p, f)
	g.LinkProgram(p)
	if g.GetProgrami(p, gl.LINK_STATUS) == gl.FALSE {
		log := g.GetProgramInfoLog(p)
		g.DeleteProgram(p)
		return 0, fmt.Errorf("render: linking the %s program: %s", name, log)
	}
	return p, nil
}

func (r *renderer) upload(m mesh) gpuMesh {
	g := r.gl
	gm := gpuMesh{vao: g.GenVertexArray(), vbo: g.GenBuffer(), ebo: g.GenBuffer(), count: int32(len(m.indices))}
	g.BindVertexArray(gm.vao)
	g.BindBuffer(gl.ARRAY_BUFFER, gm.vbo)
	g.BufferDataFloat32(gl.ARRAY_BUFFER, m.vertices, gl.STATIC_DRAW)
	g.VertexAttribPointer(0, 3, gl.FLOAT, false, 24, 0)
	g.VertexAttribPointer(1, 3, gl.FLOAT, false, 24, 12)
	g.EnableVertexAttribArray(0)
	g.EnableVertexAttribArray(1)
	g.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, gm.ebo)
	g.BufferDataUint32(gl.ELEMENT_ARRAY_BUFFER, m.indices, gl.STATIC_DRAW)
	g.BindVertexArray(0)
	return gm
}

// release deletes every GL object the renderer made; zero names are
// skipped, so it also cleans up after a failed init.
func (r *renderer) release() {
	g := r.gl
	r.cloth.release()
	for _, p := range []uint32{r.solid.prog, r.flat.prog} {
		if p != 0 {
			g.DeleteProgram(p)
		}
	}
	for _, b := range []uint32{r.flat.vbo,
		r.sphere.vbo, r.sphere.ebo, r.cylinder.vbo, r.cylinder.ebo, r.cone.vbo, r.cone.ebo} {
		if b != 0 {
			g.DeleteBuffer(b)
		}
	}
	for _, a := range []uint32{r.flat.vao, r.sphere.vao, r.cylinder.vao, r.cone.vao} {
		if a != 0 {
			g.DeleteVertexArray(a)
		}
	}
	if r.flat.atlas != 0 {
		g.DeleteTexture(r.flat.atlas)
	}
}

// draw renders f seen by cam into the bound framebuffer of width x height
// pixels.
func (r *renderer) draw(f *Frame, cam Camera, width, height int) {
	g := r.gl
	g.Viewport(0, 0, int32(width), int32(height))
	g.DepthMask(true)
	g.ClearColor(background[0], background[1], background[2], 1)
	g.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	g.Disable(gl.CULL_FACE)
	g.Disable(gl.BLEND)

	cam = cam.sane()
	r.view = cam.view()
	r.proj = cam.proj(width, height)
	g.Enable(gl.DEPTH_TEST)
	g.DepthFunc(gl.LESS)
	if r.cloth.update(f) {
		r.cloth.draw(r, &cam, height)
		r.cloth.drawPatches(r, f, &cam, height)
	}

	g.UseProgram(r.solid.prog)
	r.proj.to32(r.m16)
	g.UniformMatrix4fv(r.solid.uProj, r.m16)
	g.Enable(gl.CULL_FACE)
	r.drawStand()
	// Finger parts hidden by the cloth or the stand (the thumb, from the
	// default view) show through as a ghost: drawn, before the fingers
	// themselves, only where the depth buffer already holds something
	// nearer.
	g.DepthFunc(gl.GREATER)
	g.DepthMask(false)
	r.blend()
	r.drawFingers(f, true)
	g.Disable(gl.BLEND)
	g.DepthFunc(gl.LESS)
	g.DepthMask(true)
	r.drawFingers(f, false)
	g.Disable(gl.CULL_FACE)

	g.Disable(gl.DEPTH_TEST)
	r.blend()
	r.batch.reset()
	r.overlay(f, width, height)
	r.insets(f, width, height)
	r.flush(width, height)
	g.Disable(gl.BLEND)
}

// blend turns on "over" blending for colour while keeping the target's
// alpha at 1, so read-back images are opaque and the window does not turn
// translucent under a compositor.
func (r *renderer) blend() {
	r.gl.Enable(gl.BLEND)
	r.gl.BlendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ZERO, gl.ONE)
}

// flush draws the 2D batch.
func (r *renderer) flush(width, height int) {
	g := r.gl
	n := r.batch.quads()
	if n == 0 {
		return
	}
	g.UseProgram(r.flat.prog)
	g.Uniform2f(r.flat.uViewport, float32(width), float32(height))
	g.ActiveTexture(gl.TEXTURE0)
	g.BindTexture(gl.TEXTURE_2D, r.flat.atlas)
	g.Uniform1i(r.flat.uAtlas, 0)
	g.BindVertexArray(r.flat.vao)
	g.BindBuffer(gl.ARRAY_BUFFER, r.flat.vbo)
	g.BufferSubDataFloat32(gl.ARRAY_BUFFER, 0, r.batch.v)
	g.DrawArrays(gl.TRIANGLES, 0, int32(6*n))
	g.BindVertexArray(0)
}

// solidMesh draws m placed by model in colour col (sRGB) at opacity alpha.
func (r *renderer) solidMesh(m *gpuMesh, model *mat4, col color.NRGBA, alpha float32, spec float32) {
	g := r.gl
	mv := r.view.mul(model)
	mv.to32(r.m16)
	g.UniformMatrix4fv(r.solid.uModelView, r.m16)
	mv.normal3(r.m9)
	g.UniformMatrix3fv(r.solid.uNormalMat, r.m9)
	c := linear(col)
	g.Uniform4f(r.solid.uColor, c[0], c[1], c[2], alpha)
	g.Uniform1f(r.solid.uSpec, spec)
	g.BindVertexArray(m.vao)
	g.DrawElements(gl.TRIANGLES, m.count, gl.UNSIGNED_INT, 0)
}

func (r *renderer) rodTo(from, to vec3, radius float64, col color.NRGBA, alpha float32) {
	if m, ok := frameTo(from, to, radius); ok {
		r.solidMesh(&r.cylinder, &m, col, alpha, 0.35)
	}
}

func (r *renderer) drawStand() {
	y, rr := r.cfg.RodY, r.cfg.RodRadius
	r.rodTo(vec3{-standHalfW, y, 0}, vec3{standHalfW, y, 0}, rr, standColour, 1)
	for _, x := range []float64{-standHalfW, standHalfW} {
		r.rodTo(vec3{x, standFloorY, 0}, vec3{x, y + rr, 0}, 1.6*rr, standColour, 1)
		r.rodTo(vec3{x, standFloorY, -0.07}, vec3{x, standFloorY, 0.07}, 1.6*rr, standColour, 1)
	}
}

// drawFingers draws each valid finger: its pad, a stalk on the nail side
// (against Normal) showing which way the pad faces, and the force arrow;
// then the mouse pair's pinch point. The ghost pass draws the fingers
// translucent.
func (r *renderer) drawFingers(f *Frame, ghost bool) {
	rad := r.cfg.PadRadius
	alpha := float32(1)
	if ghost {
		alpha = ghostAlpha
	}
	for i := 0; i < sim.NumFingers; i++ {
		fi := &f.Fingers.Fingers[i]
		if !fi.Valid || !finite3(fi.Pos) {
			continue
		}
		m := sphereAt(fi.Pos, rad)
		r.solidMesh(&r.sphere, &m, fingerColour[i], alpha, 0.25)
		if n := normalize(fi.Normal); n != (vec3{}) {
			dark := fingerColour[i]
			dark.R, dark.G, dark.B = dark.R/2, dark.G/2, dark.B/2
			r.rodTo(sub(fi.Pos, scale(n, 0.6*rad)), sub(fi.Pos, scale(n, rad+0.02)), 0.35*rad, dark, alpha)
		}
		r.arrow(fi.Pos, fi.Force, rad, alpha)
	}
	if p := r.pinch; p != nil && !ghost {
		col := color.NRGBA{R: 230, G: 230, B: 230, A: 255}
		if p.Closed {
			col = color.NRGBA{R: 80, G: 240, B: 110, A: 255}
		}
		m := sphereAt(p.Point, 0.0025)
		r.solidMesh(&r.sphere, &m, col, 1, 0.2)
	}
}

// arrow draws force F [N] as an arrow leaving the pad surface.
func (r *renderer) arrow(at, force vec3, padRadius float64, alpha float32) {
	mag := norm(force)
	if !(mag >= minForceN) || math.IsInf(mag, 0) || !finite3(at) {
		return
	}
	d := scale(force, 1/mag)
	l := math.Min(mag*r.cfg.ForceScale, maxArrowM)
	head := math.Min(0.4*l, 0.012)
	start := add(at, scale(d, padRadius))
	neck := add(start, scale(d, l-head))
	tip := add(start, scale(d, l))
	r.rodTo(start, neck, 0.0013, arrowColour, alpha)
	if m, ok := frameTo(neck, tip, 0.0035); ok {
		r.solidMesh(&r.cone, &m, arrowColour, alpha, 0.3)
	}
}
