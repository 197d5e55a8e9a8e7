package exo

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/haptex/haptex/internal/vec3"
	"gonum.org/v1/gonum/mat"
)

func mustDefault(t testing.TB) *Model {
	t.Helper()
	m, err := New(DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func randomQ(m *Model, rng *rand.Rand) [3]float64 {
	p := m.Params()
	var q [3]float64
	for i := range 3 {
		q[i] = p.JointMin[i] + rng.Float64()*(p.JointMax[i]-p.JointMin[i])
	}
	return q
}

func TestHomePose(t *testing.T) {
	m := mustDefault(t)
	var k Kin
	m.Eval(&k, m.Params().Home)
	want := [3]float64{0.13, 0, 0}
	if d := vec3.Norm(vec3.Sub(k.Pad, want)); d > 1e-4 {
		t.Errorf("home pad = %v, want %v (|d| = %g m)", k.Pad, want, d)
	}
	if d := vec3.Norm(vec3.Sub(k.Normal, [3]float64{1, 0, 0})); d > 1e-4 {
		t.Errorf("home pad normal = %v, want +x", k.Normal)
	}
}

// TestJacobianFiniteDifference checks the geometric Jacobian against central
// differences of Forward, and the link Jacobians of PointJacobian likewise.
func TestJacobianFiniteDifference(t *testing.T) {
	m := mustDefault(t)
	rng := rand.New(rand.NewPCG(1, 2))
	const h = 1e-6
	for n := 0; n < 500; n++ {
		q := randomQ(m, rng)
		j := m.Jacobian(q)
		for c := range 3 {
			qp, qm := q, q
			qp[c] += h
			qm[c] -= h
			fd := vec3.Scale(1/(2*h), vec3.Sub(m.Forward(qp), m.Forward(qm)))
			for r := range 3 {
				if d := math.Abs(fd[r] - j[r][c]); d > 1e-8 {
					t.Fatalf("q=%v J[%d][%d]=%g, central difference %g", q, r, c, j[r][c], fd[r])
				}
			}
		}
		for link := 1; link <= 3; link++ {
			local := [3]float64{-0.03, 0.01, 0.02}
			_, jv, _ := m.PointJacobian(q, link, local)
			for c := range 3 {
				qp, qm := q, q
				qp[c] += h
				qm[c] -= h
				pp, _, _ := m.PointJacobian(qp, link, local)
				pm, _, _ := m.PointJacobian(qm, link, local)
				fd := vec3.Scale(1/(2*h), vec3.Sub(pp, pm))
				for r := range 3 {
					if d := math.Abs(fd[r] - jv[r][c]); d > 1e-8 {
						t.Fatalf("link %d q=%v Jv[%d][%d]=%g, central difference %g", link, q, r, c, jv[r][c], fd[r])
					}
				}
			}
		}
	}
}

// TestPointJacobianTool checks that the tool point of link 3 is the pad.
func TestPointJacobianTool(t *testing.T) {
	m := mustDefault(t)
	q := [3]float64{0.3, -0.5, 1.1}
	p, jv, jw := m.PointJacobian(q, 3, m.Params().Tool)
	var k Kin
	m.Eval(&k, q)
	if vec3.Norm(vec3.Sub(p, k.Pad)) > 1e-15 || jv != k.J {
		t.Errorf("PointJacobian(tool) = %v %v, Eval = %v %v", p, jv, k.Pad, k.J)
	}
	if jw[2][0] != 1 {
		t.Errorf("joint 1 axis = (%g,%g,%g), want base z", jw[0][0], jw[1][0], jw[2][0])
	}
}

// EvalLinks is Eval and Links from one pass over the chain, bit for bit,
// and Links' points and Jacobians are PointJacobian's.
func TestEvalLinks(t *testing.T) {
	m := mustDefault(t)
	rng := rand.New(rand.NewPCG(7, 8))
	local := [3][3]float64{{0.01, 0.002, -0.003}, {0.02, 0, 0.001}, {-0.004, 0.005, 0.006}}
	for range 100 {
		q := randomQ(m, rng)
		var k, k2 Kin
		var lk, lk2 LinkKin
		m.EvalLinks(&k, &lk, q, &local)
		m.Eval(&k2, q)
		m.Links(&lk2, q, &local)
		if k != k2 || lk != lk2 {
			t.Fatalf("q %v: EvalLinks %+v %+v, Eval and Links %+v %+v", q, k, lk, k2, lk2)
		}
		for l := range 3 {
			p, jv, jw := m.PointJacobian(q, l+1, local[l])
			if vec3.Norm(vec3.Sub(p, lk.P[l])) > 1e-15 || jv != lk.Jv[l] || jw != lk.Jw[l] {
				t.Fatalf("q %v link %d: Links %v %v %v, PointJacobian %v %v %v", q, l+1, lk.P[l], lk.Jv[l], lk.Jw[l], p, jv, jw)
			}
		}
	}
}

// TestRoundTrip checks forward then inverse kinematics over the whole joint
// space and over the scene's workspace box.
func TestRoundTrip(t *testing.T) {
	m := mustDefault(t)
	rng := rand.New(rand.NewPCG(3, 4))
	worst := 0.0
	for n := 0; n < 2000; {
		q := randomQ(m, rng)
		// The workspace is where the device is well conditioned: pad at
		// least 1 cm from every singular direction.
		j := m.Jacobian(q)
		jjt := j.T()
		jjt = j.Mul(&jjt)
		if math.Sqrt(math.Max(SymEigMin(&jjt), 0)) < 0.01 {
			continue
		}
		n++
		p := m.Forward(q)
		qi, err := m.Inverse(p, m.Params().Home, 1e-10)
		if err != nil {
			t.Fatalf("q=%v p=%v: %v", q, p, err)
		}
		d := vec3.Norm(vec3.Sub(m.Forward(qi), p))
		worst = math.Max(worst, d)
		if d > 1e-6 {
			t.Fatalf("round trip q=%v: |p - FK(IK(p))| = %g m > 1 µm", q, d)
		}
		for i := range 3 {
			if math.Abs(qi[i]-q[i]) > 1e-6 {
				t.Fatalf("round trip q=%v gave another branch %v", q, qi)
			}
		}
	}
	t.Logf("worst round-trip error %.3g m over 2000 configurations", worst)
	// The box the default base placement must cover (base frame: x towards
	// the cloth, z up): 10-18 cm ahead, ±6 cm sideways, ±5 cm in height.
	for x := 0.10; x <= 0.18+1e-9; x += 0.01 {
		for y := -0.06; y <= 0.06+1e-9; y += 0.02 {
			for z := -0.05; z <= 0.05+1e-9; z += 0.02 {
				p := [3]float64{x, y, z}
				qi, err := m.Inverse(p, m.Params().Home, 1e-10)
				if err != nil {
					t.Fatalf("workspace point %v: %v", p, err)
				}
				if d := vec3.Norm(vec3.Sub(m.Forward(qi), p)); d > 1e-6 {
					t.Fatalf("workspace point %v: error %g m", p, d)
				}
			}
		}
	}
}

func TestInverseUnreachable(t *testing.T) {
	m := mustDefault(t)
	_, err := m.Inverse([3]float64{0.5, 0, 0}, m.Params().Home, 1e-9)
	var ie *InverseError
	if err == nil {
		t.Fatal("no error for a point 50 cm away")
	}
	if !asInverseError(err, &ie) || ie.Residual < 0.2 {
		t.Errorf("err = %v, want an InverseError with residual > 0.2 m", err)
	}
}

func asInverseError(err error, dst **InverseError) bool {
	ie, ok := err.(*InverseError)
	*dst = ie
	return ok
}

// TestSingularityBounded drives the DLS inverse into the elbow singularity
// (links aligned) and the shoulder singularity (pad on the abduction axis):
// joint speeds stay finite and below |v|/(2 λ_max), and far from them the
// inverse is exact.
func TestSingularityBounded(t *testing.T) {
	p := DefaultParams()
	p.JointMin = [3]float64{-4, -4, -4}
	p.JointMax = [3]float64{4, 4, 4}
	m, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	const lambdaMax, eps = 0.01, 0.02
	v := [3]float64{0.3, -0.2, 0.25} // 0.44 m/s, faster than any finger stroke
	bound := vec3.Norm(v) / (2 * lambdaMax)
	// Each case brackets a sign change of det J along joint 3 and bisects
	// it down to the singular configuration itself.
	cases := []struct {
		name   string
		q2     float64
		lo, hi float64 // bracket on q3
	}{
		{"elbow", -0.4, -0.5 - 0.4, -0.5 + 0.4}, // links 2 and 3 aligned
		{"shoulder", 1.2, 0.1, 0.7},             // pad on the abduction axis
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			det := func(q3 float64) float64 {
				j := m.Jacobian([3]float64{0.2, tc.q2, q3})
				return j.Det()
			}
			lo, hi := tc.lo, tc.hi
			if det(lo)*det(hi) > 0 {
				t.Fatalf("no sign change of det J on [%g, %g]", lo, hi)
			}
			for range 200 {
				mid := (lo + hi) / 2
				if det(lo)*det(mid) <= 0 {
					hi = mid
				} else {
					lo = mid
				}
			}
			qs := (lo + hi) / 2
			minSigma := math.Inf(1)
			for _, s := range []float64{0.3, 0.1, 0.03, 1e-2, 1e-3, 1e-4, 1e-6, 1e-9, 0} {
				for _, sign := range []float64{-1, 1} {
					q := [3]float64{0.2, tc.q2, qs + sign*s}
					j := m.Jacobian(q)
					jjt := j.T()
					jjt = j.Mul(&jjt)
					minSigma = math.Min(minSigma, math.Sqrt(math.Max(SymEigMin(&jjt), 0)))
					lam := Damping(&j, lambdaMax, eps)
					dq, ok := DLS(&j, v, lam)
					n := vec3.Norm(dq)
					if !ok || math.IsNaN(n) || math.IsInf(n, 0) || n > bound*(1+1e-9) {
						t.Fatalf("q=%v: |q̇| = %g rad/s (ok=%v), bound %g", q, n, ok, bound)
					}
				}
			}
			if minSigma > 1e-6 {
				t.Errorf("the sweep never reached the singularity: σ_min >= %g m", minSigma)
			}
		})
	}
	// Far from singularities the damping is zero and the inverse exact.
	q := p.Home
	j := m.Jacobian(q)
	if lam := Damping(&j, lambdaMax, eps); lam != 0 {
		t.Fatalf("damping %g at home, want 0", lam)
	}
	dq, ok := DLS(&j, v, 0)
	if !ok || vec3.Norm(vec3.Sub(j.MulVec(dq), v)) > 1e-12 {
		t.Errorf("exact inverse at home: J q̇ = %v, want %v", j.MulVec(dq), v)
	}
}

// TestSymEigMin compares the closed form with gonum's symmetric eigensolver.
func TestSymEigMin(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 1000; n++ {
		var a Mat3
		for i := range 3 {
			for j := range 3 {
				a[i][j] = rng.NormFloat64()
			}
		}
		if n%10 == 0 {
			a[2] = a[1] // rank deficient
		}
		s := a.T()
		s = a.Mul(&s)
		sym := mat.NewSymDense(3, []float64{s[0][0], s[0][1], s[0][2], s[1][0], s[1][1], s[1][2], s[2][0], s[2][1], s[2][2]})
		var es mat.EigenSym
		if !es.Factorize(sym, false) {
			t.Fatal("gonum EigenSym failed")
		}
		want := es.Values(nil)[0]
		if got := SymEigMin(&s); math.Abs(got-want) > 1e-10*(1+math.Abs(want)) {
			t.Fatalf("SymEigMin = %.15g, gonum %.15g", got, want)
		}
	}
}

func TestNewRejects(t *testing.T) {
	bad := []struct {
		name string
		edit func(p *Params)
	}{
		{"nan link", func(p *Params) { p.Links[1].A = math.NaN() }},
		{"empty limits", func(p *Params) { p.JointMin[0], p.JointMax[0] = 1, 1 }},
		{"home outside", func(p *Params) { p.Home[2] = 3 }},
		{"zero normal", func(p *Params) { p.PadNormal = [3]float64{} }},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultParams()
			tc.edit(&p)
			if _, err := New(p); err == nil {
				t.Error("New accepted bad parameters")
			}
		})
	}
}

func TestEvalAllocs(t *testing.T) {
	m := mustDefault(t)
	var k Kin
	q := m.Params().Home
	v := [3]float64{0.1, 0, 0}
	if n := testing.AllocsPerRun(100, func() {
		m.Eval(&k, q)
		lam := Damping(&k.J, 0.01, 0.02)
		_, _ = DLS(&k.J, v, lam)
	}); n != 0 {
		t.Errorf("Eval+Damping+DLS allocate %v times", n)
	}
}

func BenchmarkEvalDLS(b *testing.B) {
	m := mustDefault(b)
	var k Kin
	q := m.Params().Home
	v := [3]float64{0.1, 0, 0}
	var sink [3]float64
	b.ReportAllocs()
	for b.Loop() {
		m.Eval(&k, q)
		lam := Damping(&k.J, 0.01, 0.02)
		sink, _ = DLS(&k.J, v, lam)
	}
	_ = sink
}

func TestLinksMatchesPointJacobian(t *testing.T) {
	m := mustDefault(t)
	q := [3]float64{-0.4, 0.3, 0.9}
	local := [3][3]float64{{0.01, 0.02, 0.03}, {-0.05, 0, 0.01}, {-0.03, 0.004, 0}}
	var lk LinkKin
	m.Links(&lk, q, &local)
	for i := range 3 {
		p, jv, jw := m.PointJacobian(q, i+1, local[i])
		if vec3.Norm(vec3.Sub(p, lk.P[i])) > 1e-15 || jv != lk.Jv[i] || jw != lk.Jw[i] {
			t.Errorf("link %d: Links and PointJacobian disagree", i+1)
		}
	}
}

// BenchmarkEvalLinks is the kinematics the simulated plant evaluates at
// every substep (devices/twin).
func BenchmarkEvalLinks(b *testing.B) {
	m := mustDefault(b)
	local := [3][3]float64{{0.01, 0.002, -0.003}, {0.02, 0, 0.001}, {-0.004, 0.005, 0.006}}
	var k Kin
	var lk LinkKin
	q := m.Params().Home
	b.ReportAllocs()
	for b.Loop() {
		q[1] += 1e-9
		m.EvalLinks(&k, &lk, q, &local)
	}
}
