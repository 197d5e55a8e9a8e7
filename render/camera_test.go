package render

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestCameraProjectTarget(t *testing.T) {
	c := DefaultCamera()
	x, y, ok := c.project(c.Target, 1280, 720)
	if !ok || math.Abs(x-640) > 1e-9 || math.Abs(y-360) > 1e-9 {
		t.Fatalf("target projects to (%g, %g, %v), want the centre (640, 360)", x, y, ok)
	}
	// Up in the world is up in the image, and for a yaw within ±90° +x is
	// to the right.
	xr, _, _ := c.project(add(c.Target, vec3{0.01, 0, 0}), 1280, 720)
	_, yu, _ := c.project(add(c.Target, vec3{0, 0.01, 0}), 1280, 720)
	if xr <= x || yu >= y {
		t.Errorf("+x goes to x=%g (centre %g), +y to y=%g (centre %g)", xr, x, yu, y)
	}
	if _, _, ok := c.project(add(c.Eye(), scale(sub(c.Eye(), c.Target), 1)), 1280, 720); ok {
		t.Error("a point behind the camera projects")
	}
}

// The ray through a point's projection passes through the point.
func TestCameraRayInvertsProject(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200; i++ {
		c := Camera{
			Target:   vec3{rng.Float64() - 0.5, rng.Float64(), rng.Float64() - 0.5},
			Yaw:      (rng.Float64()*2 - 1) * math.Pi,
			Pitch:    (rng.Float64()*2 - 1) * 1.4,
			Distance: 0.05 + rng.Float64(),
			FovY:     0.3 + rng.Float64(),
		}
		p := add(c.Target, vec3{(rng.Float64() - 0.5) * 0.1, (rng.Float64() - 0.5) * 0.1, (rng.Float64() - 0.5) * 0.1})
		x, y, ok := c.project(p, 800, 600)
		if !ok {
			continue
		}
		o, d := c.Ray(x, y, 800, 600)
		// distance from p to the ray
		v := sub(p, o)
		if dist := norm(sub(v, scale(d, dot(v, d)))); dist > 1e-9 {
			t.Fatalf("camera %+v: ray misses %v by %g m", c, p, dist)
		}
	}
}

func TestCameraSane(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		in   Camera
		ok   func(Camera) bool
	}{
		{"NaN target takes the default", Camera{Target: vec3{nan, 0, 0}}, func(c Camera) bool { return c == DefaultCamera() }},
		{"pitch clamped", Camera{Pitch: 3, Distance: 1, FovY: 1}, func(c Camera) bool { return c.Pitch == maxPitch }},
		{"distance clamped", Camera{Distance: 1e9, FovY: 1}, func(c Camera) bool { return c.Distance == 5 }},
		{"zero distance and fov take defaults", Camera{}, func(c Camera) bool {
			return c.Distance == DefaultCamera().Distance && c.FovY == DefaultCamera().FovY
		}},
		{"NaN yaw", Camera{Yaw: nan, Distance: 1, FovY: 1}, func(c Camera) bool { return c.Yaw == DefaultCamera().Yaw }},
	}
	for _, tc := range tests {
		if got := tc.in.sane(); !tc.ok(got) {
			t.Errorf("%s: sane() = %+v", tc.name, got)
		}
	}
}

// project returns the pixel position of world point p in a width x height
// image (origin at the top-left corner, y down, pixel (i, j) covering
// [i, i+1) x [j, j+1), as Ray takes it). ok is false when p is behind the
// camera. It is Ray's inverse, which the tests check pixels with.
func (c Camera) project(p [3]float64, width, height int) (x, y float64, ok bool) {
	c = c.sane()
	v, pr := c.view(), c.proj(width, height)
	m := pr.mul(&v)
	q := m.apply(p)
	if q[3] <= 0 {
		return 0, 0, false
	}
	x = (q[0]/q[3] + 1) / 2 * float64(width)
	y = (1 - q[1]/q[3]) / 2 * float64(height)
	return x, y, true
}
