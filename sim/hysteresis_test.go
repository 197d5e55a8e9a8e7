package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// zeroHystRun steps a 12² cloth of material m through a scene at 5 ms
// steps for 2 s and returns a digest of every step's positions,
// velocities and Newton and CG counts, and the lighter pad's largest
// normal force.
func zeroHystRun(t *testing.T, scene string, m Material) (string, float64) {
	cfg := DefaultConfig()
	cfg.NodesU, cfg.NodesV = 12, 12
	cfg.Dt = 5 * time.Millisecond
	cfg.Material = m
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := ShowcasePinch(cfg.Material.Thickness)
	if scene == "fold" {
		s = FoldScript(c.Config())
	}
	h := sha256.New()
	var b [8]byte
	var in FingerState
	var pinch float64
	for i := range 400 {
		tm := time.Duration(i) * cfg.Dt
		s.Sample(tm, &in)
		c.Step(tm, &in)
		for _, x := range [][]float64{c.x, c.v} {
			for _, v := range x {
				binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
				h.Write(b[:])
			}
		}
		st := c.Stats()
		binary.LittleEndian.PutUint64(b[:], uint64(st.CGIters)<<32|uint64(st.Newton))
		h.Write(b[:])
		pinch = max(pinch, min(c.out.Contact[Thumb].NormalForce, c.out.Contact[IndexFinger].NormalForce))
	}
	return fmt.Sprintf("%x", h.Sum(nil)), pinch
}

// testHysteresis is a friction of the strength KES data give (RT about
// 55 %, 2HG 1.5 gf/cm, 2HG5 2.8 gf/cm, 2HB 0.08 and 0.1 gf·cm/cm).
func testHysteresis() Hysteresis {
	return Hysteresis{Weft: 0.3, Warp: 0.3, TensileStrain: 4e-4, Shear05: 0.74, Shear5: 1.37, ShearAngle: 0.004,
		BendWeft: 3.9e-4, BendWarp: 4.9e-4, BendCurvature: 10}
}

// TestZeroHysteresisIsMain: a fabric without hysteresis steps through the
// pinch and the fold bit for bit as the code before hysteresis did (the
// digests were computed with it, on amd64 with AVX2 and FMA, whose kernels
// fix every operation's order, with the pads' kinetic friction renewed
// while a probe slides, and turned towards its slip, as contact.go's
// settle now does, applied to it); and
// a fabric with hysteresis does not.
func TestZeroHysteresisIsMain(t *testing.T) {
	if !useKernelAsm {
		t.Skip("the digests are those of the AVX2 kernels")
	}
	want := map[string]string{
		"pinch": "29433a6feb32c07cccaa7ef7539bdfe55cf9a1a327031efe402b260b16e9fb66",
		"fold":  "0fe8c876fac1950672d65218b97c6227c16d43cbe33fc60127a0fbdd0922bb43",
	}
	for _, scene := range []string{"pinch", "fold"} {
		got, pinch := zeroHystRun(t, scene, DefaultMaterial())
		if got != want[scene] {
			t.Errorf("%s: digest %s, the code before hysteresis gave %s", scene, got, want[scene])
		}
		if scene == "pinch" {
			if !(pinch > 0.3) {
				t.Errorf("the pinch did not pinch (%g N)", pinch)
			}
			m := DefaultMaterial()
			m.Hysteresis = testHysteresis()
			if h, _ := zeroHystRun(t, scene, m); h == got {
				t.Error("hysteresis changed nothing")
			}
		}
	}
}

// TestHysteresisLoopArea cycles a strip of one element between two chucks
// that hold all its nodes (the strain is what the chucks make it, the
// friction state all there is) from 0 to 4 % strain and back, twice, and
// compares the work the chuck does over the second cycle, the loop's area,
// with ∮z dε of the augmented Dahl equation integrated on its own (Runge-
// Kutta, S = r·|σ(ε)| from the warp curve): the friction dissipates what
// the model says, within 1 %, and nothing comes back over a cycle.
func TestHysteresisLoopArea(t *testing.T) {
	m := DefaultMaterial()
	m.Viscosity = Viscosity{}
	m.Hysteresis = testHysteresis()
	const w, l, emax, legSteps = 0.02, 0.01, 0.04, 800
	c, err := New(Config{Width: w, Height: l, NodesU: 3, NodesV: 2, Material: m, Pin: PinNone, NoRod: true,
		NoGravity: true, NoStrainLimit: true, NoSelfCollision: true, Dt: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []Edge{EdgeBottom, EdgeTop} {
		if err := c.Grip(e, 1); err != nil {
			t.Fatal(err)
		}
	}
	var in FingerState
	force := func() float64 {
		f, err := c.GripForce(EdgeTop)
		if err != nil {
			t.Fatal(err)
		}
		return -f[1] / w
	}
	var path []float64
	for range 2 {
		for i := 1; i <= legSteps; i++ {
			path = append(path, emax*float64(i)/legSteps)
		}
		for i := legSteps - 1; i >= 0; i-- {
			path = append(path, emax*float64(i)/legSteps)
		}
	}
	var simArea float64
	prevE, prevF := 0.0, force()
	for i, e := range path {
		if err := c.MoveGrip(EdgeTop, [3]float64{0, e * l, 0}); err != nil {
			t.Fatal(err)
		}
		c.Step(c.Time(), &in)
		f := force()
		if i >= 2*legSteps {
			simArea += (f + prevF) / 2 * (e - prevE)
		}
		prevE, prevF = e, f
	}
	var lw law
	lw.set(m)
	r, ls := m.Hysteresis.Warp, m.Hysteresis.TensileStrain
	dz := func(e, z, s float64) float64 {
		f, _, _ := lw.v.eval(e)
		return (r*math.Abs(f) - s*z) / ls
	}
	refArea := dahlLoopArea(path, 200, 2*legSteps, dz)
	t.Logf("loop area %.6g J/m², the equation's %.6g (%+.3f %%)", simArea, refArea, 100*(simArea/refArea-1))
	if !(refArea > 0) || math.Abs(simArea/refArea-1) > 0.01 {
		t.Errorf("loop area %.6g J/m², the equation gives %.6g", simArea, refArea)
	}
}

// dahlLoopArea integrates a Dahl element's state z from 0 along path
// (straight legs from 0 through each point, sub Runge-Kutta steps a leg),
// with dz(x, z, s) its rate dz/dx while x moves in direction s, and returns
// the area ∫z dx over the legs from index from on: the reference the loop
// area tests compare the cloth's with.
func dahlLoopArea(path []float64, sub, from int, dz func(x, z, s float64) float64) float64 {
	var z, area, x0 float64
	for i, x1 := range path {
		h := (x1 - x0) / float64(sub)
		s := math.Copysign(1, h)
		for k := range sub {
			x := x0 + float64(k)*h
			k1 := dz(x, z, s)
			k2 := dz(x+h/2, z+h/2*k1, s)
			k3 := dz(x+h/2, z+h/2*k2, s)
			k4 := dz(x+h, z+h*k3, s)
			zn := z + h/6*(k1+2*k2+2*k3+k4)
			if i >= from {
				area += h * (z + zn) / 2
			}
			z = zn
		}
		x0 = x1
	}
	return area
}

// TestCommitAtTrialIsRecompute: a step that ends at its last trial point
// commits the friction state that point's pass recorded; it must be, bit
// for bit, what the commit computes from the positions, in every mode
// (moves short and long against the characteristic deformations).
func TestCommitAtTrialIsRecompute(t *testing.T) {
	c := newTestCloth(t, func(cfg *Config) {
		cfg.NodesU, cfg.NodesV = 12, 12
		cfg.Dt = 5 * time.Millisecond
		cfg.Material.Hysteresis = testHysteresis()
	})
	runScript(c, ShowcasePinch(c.cfg.Material.Thickness), 500*time.Millisecond, nil)
	fo := &c.dyn.force
	rng := rand.New(rand.NewPCG(3, 4))
	y := append([]float64(nil), c.x...)
	for i := range y {
		y[i] += 1e-4 * math.Pow(rng.Float64(), 3) * (rng.Float64() - 0.5)
	}
	c.dyn.trial(y, c.v, make([]float64, len(y)))
	hyst := append([]triHyst(nil), fo.hyst...)
	hinge := append([]hingeHyst(nil), fo.hinge...)
	wAt := fo.commitHyst(y, true)
	gotH := append([]triHyst(nil), fo.hyst...)
	gotB := append([]hingeHyst(nil), fo.hinge...)
	copy(fo.hyst, hyst)
	copy(fo.hinge, hinge)
	w := fo.commitHyst(y, false)
	if wAt != w || !(w > 0) {
		t.Errorf("work %g at the trial point, %g recomputed (want equal, > 0)", wAt, w)
	}
	var moved int
	for i := range gotH {
		if gotH[i] != fo.hyst[i] {
			t.Fatalf("element %d: %+v at the trial point, %+v recomputed", i, gotH[i], fo.hyst[i])
		}
		if gotH[i].z != hyst[i].z {
			moved++
		}
	}
	for i := range gotB {
		if gotB[i] != fo.hinge[i] {
			t.Fatalf("hinge %d: %+v at the trial point, %+v recomputed", i, gotB[i], fo.hinge[i])
		}
		if gotB[i].z != hinge[i].z {
			moved++
		}
	}
	if moved < len(gotH)+len(gotB)/2 {
		t.Errorf("only %d of %d friction states moved", moved, len(gotH)+len(gotB))
	}
}
