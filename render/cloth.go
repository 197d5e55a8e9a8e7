package render

import (
	"fmt"
	"math"

	"github.com/go-gl/gl/v4.1-core/gl"

	"github.com/haptex/haptex/render/internal/glw"
	"github.com/haptex/haptex/sim"
)

// clothGPU holds the cloth's buffers and programs: the far program (the
// weave's mean colour), the near one (the procedural weave), and the
// contact-patch program drawn over the triangles near each patch.
type clothGPU struct {
	gl glw.Context

	far, near clothProgram
	patch     struct {
		prog                                        uint32
		uView, uProj, uPatch, uDir, uColor, uFinger int32
	}
	vao, patchVAO                  uint32 // the patch VAO shares the vertex buffers
	pos, normal, uv, ebo, patchEBO uint32
	weave                          uint32   // the weave texture (Weave.textureLevels)
	patchTris                      []uint32 // indices of the triangles near one patch, reused

	mean [3]float64 // encoded far-field colour of the weave
	topo *sim.Topology
	// uvNow are the rest coordinates in the uv buffer: topo's, then the
	// snapshots' after each regrade (grading).
	uvNow   []float32
	grading uint64
	nodes   int
	tris    int
	shaped  bool   // a valid shape of topo is in the buffers
	lo, hi  vec3   // bounding box of that shape [m]
	err     string // why the last topology or snapshot was refused
}

type clothProgram struct {
	prog                                                    uint32
	uView, uProj, uMean, uWeave, uRepeat, uGrid, uWeaveSize int32
}

func (c *clothGPU) init(r *renderer) error {
	g := c.gl
	for _, p := range []struct {
		cp     *clothProgram
		name   string
		define string
	}{{&c.far, "cloth (far)", ""}, {&c.near, "cloth (near)", "#define WEAVE\n"}} {
		var err error
		if p.cp.prog, err = r.program(p.name, clothVS, "#version 410 core\n"+p.define+clothFS); err != nil {
			return err
		}
		prog := p.cp.prog
		for _, u := range []struct {
			loc  *int32
			name string
		}{
			{&p.cp.uView, "uView"}, {&p.cp.uProj, "uProj"}, {&p.cp.uMean, "uMean"},
			{&p.cp.uWeave, "uWeave"}, {&p.cp.uRepeat, "uRepeat"}, {&p.cp.uGrid, "uGrid"},
			{&p.cp.uWeaveSize, "uWeaveSize"},
		} {
			*u.loc = g.GetUniformLocation(prog, u.name)
		}
	}
	levels, mean := r.cfg.Weave.textureLevels()
	c.mean = mean
	c.weave = g.GenTexture()
	g.BindTexture(gl.TEXTURE_2D, c.weave)
	g.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
	for i, lv := range levels {
		g.TexImage2D(gl.TEXTURE_2D, int32(i), gl.RGBA8, int32(lv.side), int32(lv.side), gl.RGBA, gl.UNSIGNED_BYTE, lv.rgba)
	}
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAX_LEVEL, int32(len(levels)-1))
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.REPEAT)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.REPEAT)
	g.BindTexture(gl.TEXTURE_2D, 0)
	var err error
	if c.patch.prog, err = r.program("contact patch", clothVS, patchFS); err != nil {
		return err
	}
	p := c.patch.prog
	c.patch.uView = g.GetUniformLocation(p, "uView")
	c.patch.uProj = g.GetUniformLocation(p, "uProj")
	c.patch.uPatch = g.GetUniformLocation(p, "uPatch")
	c.patch.uDir = g.GetUniformLocation(p, "uDir")
	c.patch.uColor = g.GetUniformLocation(p, "uColor")
	c.patch.uFinger = g.GetUniformLocation(p, "uFinger")

	c.pos, c.normal, c.uv, c.ebo, c.patchEBO = g.GenBuffer(), g.GenBuffer(), g.GenBuffer(), g.GenBuffer(), g.GenBuffer()
	c.vao, c.patchVAO = g.GenVertexArray(), g.GenVertexArray()
	for _, v := range []struct{ vao, ebo uint32 }{{c.vao, c.ebo}, {c.patchVAO, c.patchEBO}} {
		g.BindVertexArray(v.vao)
		for i, b := range []struct {
			buf  uint32
			size int32
		}{{c.pos, 3}, {c.normal, 3}, {c.uv, 2}} {
			g.BindBuffer(gl.ARRAY_BUFFER, b.buf)
			g.VertexAttribPointer(uint32(i), b.size, gl.FLOAT, false, 0, 0)
			g.EnableVertexAttribArray(uint32(i))
		}
		g.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, v.ebo)
	}
	g.BindVertexArray(0)
	return nil
}

func (c *clothGPU) release() {
	g := c.gl
	for _, p := range []uint32{c.far.prog, c.near.prog, c.patch.prog} {
		if p != 0 {
			g.DeleteProgram(p)
		}
	}
	for _, b := range []uint32{c.pos, c.normal, c.uv, c.ebo, c.patchEBO} {
		if b != 0 {
			g.DeleteBuffer(b)
		}
	}
	for _, a := range []uint32{c.vao, c.patchVAO} {
		if a != 0 {
			g.DeleteVertexArray(a)
		}
	}
	if c.weave != 0 {
		g.DeleteTexture(c.weave)
	}
}

// setTopology uploads t's connectivity and rest coordinates, after
// checking them; on failure the cloth is not drawn and the overlay says why.
func (c *clothGPU) setTopology(t *sim.Topology) {
	c.topo, c.shaped, c.nodes, c.tris = t, false, 0, 0
	switch {
	case t.Nodes <= 0:
		c.err = fmt.Sprintf("cloth: topology has %d nodes", t.Nodes)
		return
	case len(t.UV) != 2*t.Nodes:
		c.err = fmt.Sprintf("cloth: topology has %d UV values for %d nodes", len(t.UV), t.Nodes)
		return
	case len(t.Triangles)%3 != 0 || len(t.Triangles) == 0:
		c.err = fmt.Sprintf("cloth: topology has %d triangle indices", len(t.Triangles))
		return
	}
	for i, n := range t.Triangles {
		if int(n) >= t.Nodes {
			c.err = fmt.Sprintf("cloth: triangle index %d is node %d of %d", i, n, t.Nodes)
			return
		}
	}
	if !allFinite(t.UV) {
		c.err = "cloth: topology UV not finite"
		return
	}
	g := c.gl
	g.BindBuffer(gl.ARRAY_BUFFER, c.pos)
	g.BufferDataSize(gl.ARRAY_BUFFER, 12*t.Nodes, gl.STREAM_DRAW)
	g.BindBuffer(gl.ARRAY_BUFFER, c.normal)
	g.BufferDataSize(gl.ARRAY_BUFFER, 12*t.Nodes, gl.STREAM_DRAW)
	g.BindBuffer(gl.ARRAY_BUFFER, c.uv)
	g.BufferDataFloat32(gl.ARRAY_BUFFER, t.UV, gl.STATIC_DRAW)
	g.BindVertexArray(c.vao)
	g.BufferDataUint32(gl.ELEMENT_ARRAY_BUFFER, t.Triangles, gl.STATIC_DRAW)
	g.BindVertexArray(c.patchVAO)
	g.BufferDataSize(gl.ELEMENT_ARRAY_BUFFER, 4*len(t.Triangles), gl.STREAM_DRAW)
	g.BindVertexArray(0)
	if cap(c.patchTris) < len(t.Triangles) {
		c.patchTris = make([]uint32, 0, len(t.Triangles))
	}
	c.uvNow, c.grading = append(c.uvNow[:0], t.UV...), 0
	c.nodes, c.tris, c.err = t.Nodes, len(t.Triangles)/3, ""
}

// update takes f's cloth: a new topology, a new shape. It reports whether
// there is a shape to draw.
func (c *clothGPU) update(f *Frame) bool {
	if f.Topology == nil || f.Snapshot == nil {
		return false
	}
	if f.Topology != c.topo || f.Topology.Nodes != c.nodes || len(f.Topology.Triangles) != 3*c.tris {
		c.setTopology(f.Topology)
	}
	if c.nodes == 0 {
		return false
	}
	s := f.Snapshot
	if len(s.Pos) != 3*c.nodes || len(s.Normal) != 3*c.nodes {
		c.err = fmt.Sprintf("cloth: snapshot has %d positions and %d normals for %d nodes", len(s.Pos)/3, len(s.Normal)/3, c.nodes)
	} else if lo, hi, ok := bounds(s.Pos); !ok || !allFinite(s.Normal) {
		c.err = "cloth: snapshot holds NaN or Inf; showing the last good shape"
	} else {
		g := c.gl
		if s.Grading != c.grading && len(s.UV) == 2*c.nodes && allFinite(s.UV) {
			// The mesh was regraded: the nodes sit at new rest coordinates.
			copy(c.uvNow, s.UV)
			c.grading = s.Grading
			g.BindBuffer(gl.ARRAY_BUFFER, c.uv)
			g.BufferSubDataFloat32(gl.ARRAY_BUFFER, 0, c.uvNow)
		}
		g.BindBuffer(gl.ARRAY_BUFFER, c.pos)
		g.BufferSubDataFloat32(gl.ARRAY_BUFFER, 0, s.Pos)
		g.BindBuffer(gl.ARRAY_BUFFER, c.normal)
		g.BufferSubDataFloat32(gl.ARRAY_BUFFER, 0, s.Normal)
		c.shaped, c.err, c.lo, c.hi = true, "", lo, hi
	}
	return c.shaped
}

// draw draws the uploaded shape with the renderer's view and projection,
// choosing the near (woven) or the far program for the camera.
func (c *clothGPU) draw(r *renderer, cam *Camera, height int) {
	g := c.gl
	w := &r.cfg.Weave
	pitchU, pitchV := w.WarpSpacing*w.Magnify, w.WeftSpacing*w.Magnify
	// Beyond 8 yarn cells per pixel the texture's mipmaps show only its
	// mean; no point of the cloth has a smaller footprint than one facing
	// the camera at the nearest corner of its bounding box.
	p := &c.far
	if pixelSize(cam, boxDistance(cam.Eye(), c.lo, c.hi), height)/math.Min(pitchU, pitchV) < 8 {
		p = &c.near
	}
	g.UseProgram(p.prog)
	r.view.to32(r.m16)
	g.UniformMatrix4fv(p.uView, r.m16)
	r.proj.to32(r.m16)
	g.UniformMatrix4fv(p.uProj, r.m16)
	g.Uniform3f(p.uMean, float32(c.mean[0]), float32(c.mean[1]), float32(c.mean[2]))
	grid := float32(r.cfg.Grid)
	if r.noGrid {
		grid = 0
	}
	g.Uniform1f(p.uGrid, grid)
	if p == &c.near {
		g.ActiveTexture(gl.TEXTURE0)
		g.BindTexture(gl.TEXTURE_2D, c.weave)
		g.Uniform1i(p.uWeave, 0)
		g.Uniform2f(p.uRepeat, float32(weaveRepeat*pitchU), float32(weaveRepeat*pitchV))
		g.Uniform1f(p.uWeaveSize, weaveRepeat*weaveTexels)
	}
	g.BindVertexArray(c.vao)
	g.DrawElements(gl.TRIANGLES, int32(3*c.tris), gl.UNSIGNED_INT, 0)
	g.BindVertexArray(0)
}

// drawPatches draws each finger's contact patch over the cloth, blended,
// at the cloth's own depths.
func (c *clothGPU) drawPatches(r *renderer, f *Frame, cam *Camera, height int) {
	g := c.gl
	first := true
	for i := 0; i < sim.NumFingers; i++ {
		cp := &f.Sim.Contact[i]
		if !cp.InContact || !finite3(vec3{cp.U, cp.V, cp.Orientation}) {
			continue
		}
		rad := 0.004
		if cp.Area > 0 && !math.IsInf(cp.Area, 0) {
			rad = math.Max(0.001, math.Min(0.03, math.Sqrt(cp.Area/math.Pi)))
		}
		// Lines 1.5 px wide where the finger is.
		d := cam.Distance
		fi := &f.Fingers.Fingers[i]
		known := fi.Valid && finite3(fi.Pos)
		if known {
			d = norm(sub(fi.Pos, cam.Eye()))
		}
		lw := 1.5 * pixelSize(cam, d, height)
		n := c.selectNear(float32(cp.U), float32(cp.V), float32(rad+2*lw))
		if n == 0 {
			continue
		}
		if first {
			g.UseProgram(c.patch.prog)
			r.view.to32(r.m16)
			g.UniformMatrix4fv(c.patch.uView, r.m16)
			r.proj.to32(r.m16)
			g.UniformMatrix4fv(c.patch.uProj, r.m16)
			g.DepthFunc(gl.LEQUAL)
			g.DepthMask(false)
			r.blend()
			first = false
		}
		g.Uniform4f(c.patch.uPatch, float32(cp.U), float32(cp.V), float32(rad), float32(lw))
		g.Uniform2f(c.patch.uDir, float32(math.Cos(cp.Orientation)), float32(math.Sin(cp.Orientation)))
		col := fingerColour[i]
		g.Uniform3f(c.patch.uColor, float32(col.R)/255, float32(col.G)/255, float32(col.B)/255)
		if known {
			q := r.view.apply(fi.Pos)
			g.Uniform4f(c.patch.uFinger, float32(q[0]), float32(q[1]), float32(q[2]), 1)
		} else {
			g.Uniform4f(c.patch.uFinger, 0, 0, 0, 0)
		}
		g.BindVertexArray(c.patchVAO)
		g.BufferSubDataUint32(gl.ELEMENT_ARRAY_BUFFER, 0, c.patchTris)
		g.DrawElements(gl.TRIANGLES, int32(n), gl.UNSIGNED_INT, 0)
		g.BindVertexArray(0)
	}
	if !first {
		g.Disable(gl.BLEND)
		g.DepthMask(true)
		g.DepthFunc(gl.LESS)
	}
}

// selectNear fills patchTris with the triangles whose rest-coordinate
// bounding box comes within reach of (u, v) and returns the index count.
func (c *clothGPU) selectNear(u, v, reach float32) int {
	t := c.topo.Triangles
	uv := c.uvNow
	c.patchTris = c.patchTris[:0]
	for i := 0; i+2 < len(t); i += 3 {
		a, b, d := 2*t[i], 2*t[i+1], 2*t[i+2]
		lu := min(uv[a], uv[b], uv[d])
		hu := max(uv[a], uv[b], uv[d])
		lv := min(uv[a+1], uv[b+1], uv[d+1])
		hv := max(uv[a+1], uv[b+1], uv[d+1])
		if lu-reach <= u && u <= hu+reach && lv-reach <= v && v <= hv+reach {
			c.patchTris = append(c.patchTris, t[i], t[i+1], t[i+2])
		}
	}
	return len(c.patchTris)
}

// bounds returns the bounding box of the points in pos (3 per point) and
// whether every value is finite.
func bounds(pos []float32) (lo, hi vec3, ok bool) {
	if len(pos) < 3 {
		return lo, hi, false
	}
	l := [3]float32{pos[0], pos[1], pos[2]}
	h := l
	for i := 0; i+2 < len(pos); i += 3 {
		for k := 0; k < 3; k++ {
			x := pos[i+k]
			if x-x != 0 { // NaN or ±Inf
				return lo, hi, false
			}
			l[k] = min(l[k], x)
			h[k] = max(h[k], x)
		}
	}
	return vec3{float64(l[0]), float64(l[1]), float64(l[2])}, vec3{float64(h[0]), float64(h[1]), float64(h[2])}, true
}

func allFinite(s []float32) bool {
	for _, x := range s {
		if x-x != 0 { // NaN or ±Inf
			return false
		}
	}
	return true
}

// pixelSize is the side [m] of one pixel's footprint on a surface facing
// the camera at distance d.
func pixelSize(cam *Camera, d float64, height int) float64 {
	return 2 * d * math.Tan(cam.FovY/2) / float64(height)
}

// boxDistance is the distance from p to the box [lo, hi] (0 inside).
func boxDistance(p, lo, hi vec3) float64 {
	var d vec3
	for k := range d {
		d[k] = math.Max(0, math.Max(lo[k]-p[k], p[k]-hi[k]))
	}
	return norm(d)
}
