package render

import "math"

// Camera is an orbit camera: it looks at Target from Distance away, from
// the direction given by Yaw (about +y, 0 = from +z, positive towards +x)
// and Pitch (positive = from above).
type Camera struct {
	Target   [3]float64 // orbit centre [m], world frame
	Yaw      float64    // [rad]
	Pitch    float64    // [rad], kept within ±89°
	Distance float64    // eye to target [m], kept within [2 cm, 5 m]
	FovY     float64    // vertical field of view [rad]; 0 → 40°
}

// DefaultCamera frames the hand: the finger pair at the mouse pair's
// starting point (HandCamera). Windows and snapshots aim it at the pads
// wherever they are (Camera.AimedAt) unless Config.NoFollow.
func DefaultCamera() Camera { return HandCamera(DefaultPinch().Point) }

// HandCamera frames the finger pair around the point p [m]: both 16 mm
// pads and the cloth pinched between them fill about a fifth of a
// 1280-pixel-wide picture each (220 px across), seen from the index
// finger's side, from the right and a little above, so the fold and the
// stretch of the pinched cloth read in depth.
func HandCamera(p [3]float64) Camera {
	return Camera{
		Target:   p,
		Yaw:      50 * math.Pi / 180,
		Pitch:    14 * math.Pi / 180,
		Distance: 0.075,
		FovY:     40 * math.Pi / 180,
	}
}

// StandCamera frames the whole showcase scene: the 30 cm cloth on its
// rod and the stand, from the index finger's side (+z), a little from the
// right and above.
func StandCamera() Camera {
	return Camera{
		Target:   [3]float64{0, 0.15, 0},
		Yaw:      30 * math.Pi / 180,
		Pitch:    12 * math.Pi / 180,
		Distance: 0.62,
		FovY:     40 * math.Pi / 180,
	}
}

// AimedAt returns c turned to look at the finger pair of f: the midpoint
// of the valid pads (one pad when only one is valid); c itself when none
// is.
func (c Camera) AimedAt(f *Frame) Camera {
	if p, ok := fingerMidpoint(f); ok {
		c.Target = p
	}
	return c
}

func fingerMidpoint(f *Frame) (vec3, bool) {
	var sum vec3
	n := 0
	for i := range f.Fingers.Fingers {
		fi := &f.Fingers.Fingers[i]
		if fi.Valid && finite3(fi.Pos) {
			sum = add(sum, fi.Pos)
			n++
		}
	}
	if n == 0 {
		return vec3{}, false
	}
	return scale(sum, 1/float64(n)), true
}

const maxPitch = 89 * math.Pi / 180

// sane returns c with every field finite and in range; a camera that cannot
// be repaired (non-finite target) becomes the default.
func (c Camera) sane() Camera {
	d := DefaultCamera()
	if !finite3(c.Target) {
		return d
	}
	if math.IsNaN(c.Yaw) || math.IsInf(c.Yaw, 0) {
		c.Yaw = d.Yaw
	}
	c.Yaw = math.Remainder(c.Yaw, 2*math.Pi)
	if math.IsNaN(c.Pitch) {
		c.Pitch = d.Pitch
	}
	c.Pitch = math.Max(-maxPitch, math.Min(maxPitch, c.Pitch))
	if math.IsNaN(c.Distance) || c.Distance <= 0 {
		c.Distance = d.Distance
	}
	c.Distance = math.Max(0.02, math.Min(5, c.Distance))
	if math.IsNaN(c.FovY) || c.FovY <= 0 {
		c.FovY = d.FovY
	}
	c.FovY = math.Max(5*math.Pi/180, math.Min(120*math.Pi/180, c.FovY))
	return c
}

// Eye is the camera position [m], world frame.
func (c Camera) Eye() [3]float64 {
	cp, sp := math.Cos(c.Pitch), math.Sin(c.Pitch)
	cy, sy := math.Cos(c.Yaw), math.Sin(c.Yaw)
	return add(c.Target, scale(vec3{cp * sy, sp, cp * cy}, c.Distance))
}

func (c Camera) view() mat4 { return lookAt(c.Eye(), c.Target, vec3{0, 1, 0}) }

func (c Camera) clip() (near, far float64) {
	return math.Min(0.05, c.Distance/10), c.Distance*10 + 1
}

func (c Camera) proj(width, height int) mat4 {
	near, far := c.clip()
	return perspective(c.FovY, float64(width)/float64(height), near, far)
}

// Ray returns the eye and the unit direction of the ray through pixel
// position (x, y) of a width x height image (origin at the top-left
// corner, y down, pixel (i, j) covering [i, i+1) x [j, j+1)).
func (c Camera) Ray(x, y float64, width, height int) (origin, dir [3]float64) {
	c = c.sane()
	eye := c.Eye()
	f := normalize(sub(c.Target, eye))
	s := normalize(cross(f, vec3{0, 1, 0}))
	u := cross(s, f)
	t := math.Tan(c.FovY / 2)
	aspect := float64(width) / float64(height)
	nx := (2*x/float64(width) - 1) * t * aspect
	ny := (1 - 2*y/float64(height)) * t
	return eye, normalize(add(f, add(scale(s, nx), scale(u, ny))))
}
