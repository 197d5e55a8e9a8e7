package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The contact curvature regression returns a surface's mean curvature:
// 1/ρ on a sphere, 1/(2ρ) on a cylinder, 0 on a plane, with the sign
// saying whether the surface curves round the pad (normals spreading
// away from it) or bulges towards it, for patches anywhere on the surface
// turned anywhere in space, weighted like a contact's pressure.
func TestContactCurvature(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	const rho = 20e-3
	for _, tc := range []struct {
		name string
		want float64
		// point returns a surface point and its normal for in-patch
		// coordinates (s, q) [m], the surface's normal at (0, 0) being +z.
		point func(s, q float64) (x, m [3]float64)
	}{
		{"plane", 0, func(s, q float64) ([3]float64, [3]float64) {
			return [3]float64{s, q, 0}, [3]float64{0, 0, 1}
		}},
		{"sphere round the pad", 1 / rho, func(s, q float64) ([3]float64, [3]float64) {
			m, _ := unit([3]float64{s, q, rho})
			return scale3(rho, m), m
		}},
		{"sphere bulging to the pad", -1 / rho, func(s, q float64) ([3]float64, [3]float64) {
			m, _ := unit([3]float64{-s, -q, rho})
			return [3]float64{s, q, 2*rho - rho*m[2]}, m
		}},
		{"cylinder round the pad", 1 / (2 * rho), func(s, q float64) ([3]float64, [3]float64) {
			a := s / rho
			return [3]float64{rho * math.Sin(a), q, rho * math.Cos(a)}, [3]float64{math.Sin(a), 0, math.Cos(a)}
		}},
	} {
		for range 5 {
			// A patch of radius 4-7 mm somewhere on the surface, turned
			// arbitrarily in space.
			r := 4e-3 + 3e-3*rng.Float64()
			s0, q0 := 5e-3*(rng.Float64()-0.5), 5e-3*(rng.Float64()-0.5)
			rot := randomRotation(rng)
			// Positions relative to the pad's centre, as settle passes them.
			shift := scale3(0.01, [3]float64{rng.Float64(), rng.Float64(), rng.Float64()})
			var sums curvatureSums
			for i := range 12 {
				rr := r * (float64(i) + 0.5) / 12
				for k := range 36 {
					ang := 2 * math.Pi * float64(k) / 36
					x, m := tc.point(s0+rr*math.Cos(ang), q0+rr*math.Sin(ang))
					sums.add(rr*(1-0.9*rr*rr/(r*r)), add3(mulVec33(&rot, x), shift), mulVec33(&rot, m))
				}
			}
			got := sums.curvature()
			// The regression's spread term (curvatureSpread) shrinks the
			// estimate by 2-4 % on patches this size; on the plane it
			// must be 0.
			if math.Abs(got-tc.want) > 0.06*math.Abs(tc.want)+1e-6 {
				t.Errorf("%s, patch radius %.1f mm: curvature %.4g 1/m, want %.4g", tc.name, r*1e3, got, tc.want)
			}
		}
	}
	var none curvatureSums
	if none.curvature() != 0 {
		t.Error("no contacts: curvature not 0")
	}
}
