package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// bendOnly is testHysteresis's bending friction alone.
func bendOnly() Hysteresis {
	h := testHysteresis()
	return Hysteresis{BendWeft: h.BendWeft, BendWarp: h.BendWarp, BendCurvature: h.BendCurvature}
}

// specimen is a strip of n elements along u (0.5 cm each) and two across
// with the bending friction alone, every node held by the chucks
// (Grip), for the tests to bend.
func specimen(t *testing.T, n int) *Cloth {
	t.Helper()
	m := DefaultMaterial()
	m.Viscosity = Viscosity{}
	m.Hysteresis = bendOnly()
	c, err := New(Config{Width: 0.005 * float64(n), Height: 0.01, NodesU: n + 1, NodesV: 3, Material: m, Pin: PinNone,
		NoRod: true, NoGravity: true, NoStrainLimit: true, NoSelfCollision: true, Dt: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Grip(EdgeLeft, n); err != nil {
		t.Fatal(err)
	}
	if err := c.Grip(EdgeRight, 1); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestHingeForcesAreGradient: within a step the bending friction's forces
// are minus the gradient of its work (central differences), at a state
// with friction moments of both signs, and the step's matrix holds its
// stiffness: along the normal, the derivative of the forces.
func TestHingeForcesAreGradient(t *testing.T) {
	c := specimen(t, 6)
	fo := &c.dyn.force
	rng := rand.New(rand.NewPCG(1, 2))
	x := append([]float64(nil), c.x...)
	bump := func(a float64) {
		for k := range c.n {
			x[3*k+2] += a * (rng.Float64() - 0.5)
		}
	}
	for range 3 {
		bump(4e-4)
		fo.commitHinges(x, false)
	}
	bump(2e-4)
	var zs [2]int
	for i, s := range fo.hinge {
		if s.z > 0 {
			zs[0]++
		} else if s.z < 0 {
			zs[1]++
		}
		if s.z == 0 {
			t.Fatalf("hinge %d has no friction moment", i)
		}
	}
	if zs[0] == 0 || zs[1] == 0 {
		t.Fatalf("friction moments of one sign only: %v", zs)
	}
	f := make([]float64, 3*c.n)
	fo.hingePass(x, f)
	var fmax, emax float64
	const d = 1e-8
	for i := range x {
		x0 := x[i]
		x[i] = x0 + d
		wp := fo.hingePass(x, nil)
		x[i] = x0 - d
		wm := fo.hingePass(x, nil)
		x[i] = x0
		fmax = max(fmax, math.Abs(f[i]))
		emax = max(emax, math.Abs(f[i]+(wp-wm)/(2*d)))
	}
	t.Logf("largest force %.4g N, largest difference from -dW/dx %.3g N", fmax, emax)
	if !(fmax > 0) || emax > 1e-6*fmax {
		t.Errorf("forces differ from -dW/dx by %.3g N (largest force %.4g N)", emax, fmax)
	}
	// The stiffness along z (the normal here, within the bumps' tilt).
	p := make([]float64, 3*c.n)
	for k := range c.n {
		p[3*k+2] = rng.Float64() - 0.5
	}
	kp := make([]float64, 3*c.n)
	fo.mulAddHinges(kp, p, 1, false)
	fp, fm := make([]float64, 3*c.n), make([]float64, 3*c.n)
	const h = 1e-9
	y := append([]float64(nil), x...)
	for i := range y {
		y[i] = x[i] + h*p[i]
	}
	fo.hingePass(y, fp)
	for i := range y {
		y[i] = x[i] - h*p[i]
	}
	fo.hingePass(y, fm)
	var fd, iso, exact float64
	for i := range p {
		fd -= p[i] * (fp[i] - fm[i]) / (2 * h)
		iso += p[i] * kp[i]
	}
	for i := range c.m.hinges {
		q := fo.hinge[i].nrm.dot(c.m.hinges[i].vector(p))
		exact += fo.hingeK[i] * q * q
	}
	t.Logf("pᵀKp: the matrix's %.6g, exact %.6g, the forces' derivative %.6g", iso, exact, fd)
	if !(fd > 0) || math.Abs(exact/fd-1) > 1e-5 {
		t.Errorf("pᵀKp %.6g, the forces' derivative gives %.6g", exact, fd)
	}
	if iso < exact {
		t.Errorf("the matrix's pᵀKp %.6g is below the exact %.6g", iso, exact)
	}
}

// TestBendingLoopArea bends a strip held at every node through the
// curvature cycle 0 → K → -K → K → -K → K (its nodes on a circle of
// curvature k, each at its rest spacing from the next, so the hinges
// measure k itself) and compares the chucks' work over the second cycle,
// by virtual work, with the loop area ∮z dk of the Dahl equation
// integrated on its own (Runge-Kutta) times the bent area: the bending
// friction dissipates what the model says, and over a cycle the elastic
// part gives back all it took.
func TestBendingLoopArea(t *testing.T) {
	const n, h, kmax, legSteps = 4, 0.005, 150.0, 300
	c := specimen(t, n)
	var in FingerState
	place := func(k float64) func(o [3]float64) [3]float64 {
		return func(o [3]float64) [3]float64 {
			s := o[0] - 0.005*n/2
			if k == 0 {
				return [3]float64{o[0], o[1], o[2]}
			}
			phi := s / h * 2 * math.Asin(k*h/2)
			return [3]float64{0.005*n/2 + math.Sin(phi)/k, o[1], o[2] + (1-math.Cos(phi))/k}
		}
	}
	if n := cross3(sub3(at3(c.x, 1), at3(c.x, 0)), sub3(at3(c.x, n+1), at3(c.x, 0))); n[2] <= 0 {
		t.Fatalf("the specimen's normal %v is not +z", n)
	}
	area := float64(n-1) * h * 0.01
	moment := func(k float64) float64 {
		lo, hi := place(k-1e-4), place(k+1e-4)
		var w float64
		for _, e := range []Edge{EdgeLeft, EdgeRight} {
			we, err := c.GripWork(e, func(o [3]float64) [3]float64 { return scale3(1/2e-4, sub3(hi(o), lo(o))) })
			if err != nil {
				t.Fatal(err)
			}
			w += we
		}
		return -w / area
	}
	var path []float64
	for i := 1; i <= legSteps; i++ {
		path = append(path, kmax*float64(i)/legSteps)
	}
	for range 4 {
		last := path[len(path)-1]
		for i := 1; i <= 2*legSteps; i++ {
			path = append(path, last-math.Copysign(2*kmax*float64(i)/(2*legSteps), last))
		}
	}
	second := legSteps + 4*legSteps // the second cycle: from the end of the second leg on
	var simArea float64
	prevK, prevM := 0.0, moment(0)
	for i, k := range path {
		for _, e := range []Edge{EdgeLeft, EdgeRight} {
			if err := c.PlaceGrip(e, place(k)); err != nil {
				t.Fatal(err)
			}
		}
		c.Step(c.Time(), &in)
		mk := moment(k)
		if i >= second {
			simArea += (mk + prevM) / 2 * (k - prevK)
		}
		prevK, prevM = k, mk
	}
	hy := bendOnly()
	s, l := hy.BendWeft, hy.BendCurvature
	refArea := dahlLoopArea(path, 50, second, func(_, z, sg float64) float64 { return (s - sg*z) / l })
	t.Logf("loop area %.6g N/m, the equation's %.6g (%+.4f %%)", simArea, refArea, 100*(simArea/refArea-1))
	if !(refArea > 0) || math.Abs(simArea/refArea-1) > 0.005 {
		t.Errorf("loop area %.6g N/m, the equation gives %.6g", simArea, refArea)
	}
}
