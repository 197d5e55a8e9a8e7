package kes

import (
	"math"
	"testing"
)

// trapz integrates sampled points with the trapezoid rule: an integration
// independent of the closed forms the curves are built from.
func trapz(pts []Point) float64 {
	var s float64
	for i := 1; i < len(pts); i++ {
		s += (pts[i].X - pts[i-1].X) * (pts[i].Y + pts[i-1].Y) / 2
	}
	return s
}

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// TestTensileCurveReproducesKES recovers EMT, WT and LT from the sampled
// curve as the instrument would: strain at F_m, area under the loading
// curve, and area over the triangle F_m·ε_m/2.
func TestTensileCurveReproducesKES(t *testing.T) {
	for _, tc := range []struct {
		name        string
		emt, lt, fm float64
	}{
		{"convex woven", 4.5, 0.58, 500},
		{"convex low LT", 3.0, 0.15, 500},
		{"near linear", 2.0, 0.999, 500},
		{"linear", 2.0, 1.0, 500},
		{"concave", 6.0, 1.25, 500},
		{"knit at 50 gf/cm", 80, 0.65, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wt := tc.lt * tc.fm * tc.emt / 200 // the KES identity, exact here
			c, err := NewTensileCurve(tc.emt, wt, tc.fm)
			if err != nil {
				t.Fatal(err)
			}
			pts := c.Points(nil, 200001)
			last := pts[len(pts)-1]
			fmSI := tc.fm * 0.980665
			if relErr(last.X*100, tc.emt) > 1e-12 || relErr(last.Y, fmSI) > 1e-12 {
				t.Errorf("end point %+v, want EMT %v %% at %v N/m", last, tc.emt, fmSI)
			}
			area := trapz(pts) // J/m²
			if e := relErr(area/0.980665, wt); e > 1e-8 {
				t.Errorf("WT from the curve %v gf·cm/cm², want %v (rel err %.2g)", area/0.980665, wt, e)
			}
			lt := area / (fmSI * c.StrainMax / 2)
			if e := relErr(lt, tc.lt); e > 1e-8 {
				t.Errorf("LT from the curve %v, want %v (rel err %.2g)", lt, tc.lt, e)
			}
			if relErr(c.Linearity(), tc.lt) > 1e-12 {
				t.Errorf("Linearity() = %v, want %v", c.Linearity(), tc.lt)
			}
			// Monotone, and the tangent matches central differences.
			for i := 1; i < len(pts); i += 1000 {
				if pts[i].Y < pts[i-1].Y {
					t.Fatalf("force decreases at strain %v", pts[i].X)
				}
			}
			for _, x := range []float64{0.1, 0.37, 0.8, 0.99, 1.3} {
				e, h := x*c.StrainMax, 1e-7*c.StrainMax
				fd := (c.Force(e+h) - c.Force(e-h)) / (2 * h)
				if relErr(c.Stiffness(e), fd) > 1e-5 {
					t.Errorf("stiffness at %v ε_m: %v, finite difference %v", x, c.Stiffness(e), fd)
				}
			}
			// A convex curve keeps 10 % of the secant at zero strain (LT/2
			// when LT is below 0.2); no curve has zero or infinite
			// stiffness there.
			k0 := c.Stiffness(0)
			if a := math.Min(initialTangent, tc.lt/2); tc.lt < 1 && relErr(k0, a*c.SecantStiffness()) > 1e-9 {
				t.Errorf("initial tangent %v, want %v × secant %v", k0, a, c.SecantStiffness())
			}
			if !(k0 > 0) || math.IsInf(k0, 0) {
				t.Errorf("initial tangent %v", k0)
			}
			if k := c.Stiffness(1.5 * c.StrainMax); k < c.SecantStiffness()*(1-1e-12) {
				t.Errorf("stiffness past ε_m %v below the secant %v", k, c.SecantStiffness())
			}
		})
	}
}

func TestTensileCurveRejects(t *testing.T) {
	for _, in := range [][3]float64{{0, 5, 500}, {4, -1, 500}, {4, 5, 0}, {math.NaN(), 5, 500}, {4, math.Inf(1), 500},
		{4, 10, 500}, // LT = 1: fine
		{4, 20, 500}, // LT = 2: no monotone curve
	} {
		_, err := NewTensileCurve(in[0], in[1], in[2])
		lt := in[1] / (in[2] * in[0] / 200)
		wantOK := in[0] > 0 && in[1] > 0 && in[2] > 0 && lt < 2 && !math.IsInf(in[1], 0)
		if (err == nil) != wantOK {
			t.Errorf("NewTensileCurve(%v): err %v, want ok %v", in, err, wantOK)
		}
	}
}

// TestShearLoopReproducesKES recovers G as the mean slope of the two
// branches between 0.5° and 5° (both signs), and 2HG, 2HG5 as the loop width
// at 0.5° and 5°.
func TestShearLoopReproducesKES(t *testing.T) {
	const g, hg, hg5 = 0.58, 0.45, 1.2 // gf/(cm·deg), gf/cm
	l, err := NewShearLoop(g, hg, hg5, 8)
	if err != nil {
		t.Fatal(err)
	}
	up, down := l.Loop(nil, nil, 1601) // 0.01° steps
	if up[0].X != -l.MaxAngle || down[0].X != l.MaxAngle {
		t.Fatalf("loop does not start at ∓8°: %v %v", up[0].X, down[0].X)
	}
	deg := math.Pi / 180
	at := func(pts []Point, a float64) float64 { // samples fall on 0.01° steps
		for _, p := range pts {
			if math.Abs(p.X-a*deg) < 1e-9 {
				return p.Y
			}
		}
		t.Fatalf("no sample at %v°", a)
		return 0
	}
	var slopes float64
	for _, s := range []float64{1, -1} {
		for _, br := range [][]Point{up, down} {
			slopes += (at(br, 5*s) - at(br, 0.5*s)) / (4.5 * s) // N/m per degree
		}
	}
	gotG := slopes / 4 / 0.980665
	if relErr(gotG, g) > 1e-9 {
		t.Errorf("G recovered %v, want %v", gotG, g)
	}
	for _, a := range []float64{0.5, -0.5} {
		if w := math.Abs(at(up, a)-at(down, a)) / 0.980665; relErr(w, hg) > 1e-9 {
			t.Errorf("2HG at %v° = %v, want %v", a, w, hg)
		}
	}
	for _, a := range []float64{5, -5} {
		if w := math.Abs(at(up, a)-at(down, a)) / 0.980665; relErr(w, hg5) > 1e-9 {
			t.Errorf("2HG5 at %v° = %v, want %v", a, w, hg5)
		}
	}
	// × 56.188 (0.980665 × 180/π) from gf/(cm·deg) to N/(m·rad).
	if relErr(l.G, g*56.188) > 1e-5 {
		t.Errorf("G in SI %v N/(m·rad), want %v", l.G, g*56.188)
	}
}

// TestBendingLoopReproducesKES recovers B as the slope over K = 0.5-1.5
// cm⁻¹ and 2HB as the width at K = ±1 cm⁻¹.
func TestBendingLoopReproducesKES(t *testing.T) {
	const b, hb = 0.142, 0.098
	l, err := NewBendingLoop(b, hb, 2.5)
	if err != nil {
		t.Fatal(err)
	}
	up, down := l.Loop(nil, nil, 501) // 0.01 cm⁻¹ steps
	at := func(pts []Point, k float64) float64 {
		for _, p := range pts {
			if math.Abs(p.X-k*100) < 1e-9 {
				return p.Y
			}
		}
		t.Fatalf("no sample at %v 1/cm", k)
		return 0
	}
	for _, br := range [][]Point{up, down} {
		slope := (at(br, 1.5) - at(br, 0.5)) / 100 // N·m per (1/cm → 1/m)
		if got := slope / 9.80665e-5; relErr(got, b) > 1e-9 {
			t.Errorf("B recovered %v gf·cm²/cm, want %v", got, b)
		}
	}
	for _, k := range []float64{1, -1} {
		if w := (at(up, k) - at(down, k)) / 9.80665e-3; relErr(w, hb) > 1e-9 {
			t.Errorf("2HB at K = %v: %v, want %v", k, w, hb)
		}
	}
	if relErr(l.B, b*9.80665e-5) > 1e-12 || relErr(l.MaxCurvature, 250) > 1e-12 {
		t.Errorf("SI: B %v N·m, max curvature %v 1/m", l.B, l.MaxCurvature)
	}
}

// TestCompressionCurveReproducesKES recovers WC by integration, the end
// points, and LC within the identity the inputs satisfy.
func TestCompressionCurveReproducesKES(t *testing.T) {
	const lc, t0, tm, pm = 0.34, 0.52, 0.38, 50.0
	wc := lc * pm * (t0 - tm) / 10 / 2
	c, err := NewCompressionCurve(wc, t0, tm, pm)
	if err != nil {
		t.Fatal(err)
	}
	pts := c.Points(nil, 100001) // from T0 down to TM
	if relErr(pts[0].X, t0*1e-3) > 1e-12 || relErr(pts[0].Y, 0.5*98.0665) > 1e-12 {
		t.Errorf("start %+v, want T0 %v mm at 0.5 gf/cm²", pts[0], t0)
	}
	if end := pts[len(pts)-1]; relErr(end.X, tm*1e-3) > 1e-12 || relErr(end.Y, pm*98.0665) > 1e-12 {
		t.Errorf("end %+v, want TM %v mm at %v gf/cm²", end, tm, pm)
	}
	area := -trapz(pts) // thickness decreases along the samples
	if relErr(area/0.980665, wc) > 1e-8 {
		t.Errorf("WC from the curve %v, want %v", area/0.980665, wc)
	}
	if relErr(c.Linearity(), lc) > 1e-9 {
		t.Errorf("LC from the curve %v, want %v", c.Linearity(), lc)
	}
	want := (pm - 0.5) * 98.0665 / ((t0 - tm) * 1e-3)
	if relErr(c.SecantStiffness(), want) > 1e-12 {
		t.Errorf("secant stiffness %v Pa/m, want %v", c.SecantStiffness(), want)
	}
	if p := c.Pressure(2 * t0 * 1e-3); p != 0 {
		t.Errorf("pressure far above T0 = %v, want 0 (lifted off)", p)
	}
}

func TestFabricHelpers(t *testing.T) {
	f, err := Parse([]byte(readFile(t, "testdata/example.toml")), "example.toml")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.ArealMass(); relErr(got, 0.18) > 1e-12 {
		t.Errorf("areal mass %v kg/m², want 0.18", got)
	}
	if t0, tm := f.Thickness(); relErr(t0, 0.52e-3) > 1e-12 || relErr(tm, 0.38e-3) > 1e-12 {
		t.Errorf("thickness %v, %v m", t0, tm)
	}
	if got := f.BendingRigidity(Warp); relErr(got, 0.142*9.80665e-5) > 1e-12 {
		t.Errorf("warp B %v N·m", got)
	}
	if got := f.BendingRigidity(Bias); relErr(got, (0.142+0.081)/2*9.80665e-5) > 1e-12 {
		t.Errorf("bias B (mean of warp and weft) %v N·m", got)
	}
	if got := f.ShearModulus(Weft); relErr(got, 1.15*0.980665*180/math.Pi) > 1e-12 {
		t.Errorf("shear modulus %v N/(m·rad)", got)
	}
	fr := f.Friction(Warp)
	if fr.Mu != 0.205 || fr.MuDev != 0.021 || relErr(fr.MuSigma, 0.021*1.2533141) > 1e-6 {
		t.Errorf("friction %+v", fr)
	}
	if r := f.Roughness(Weft); relErr(r.SMD, 6.1e-6) > 1e-12 || relErr(r.SigmaH, 6.1e-6*1.2533141) > 1e-6 {
		t.Errorf("roughness %+v", r)
	}
	if loss, _ := f.TensileLoss(Warp); relErr(loss, 0.515) > 1e-12 {
		t.Errorf("tensile loss %v, want 0.515", loss)
	}
	if _, err := f.TensileCurve(Bias); err != nil {
		t.Errorf("bias curve: %v", err)
	}
	w, e := f.ThreadSpacing()
	if relErr(w, 1/3600.0) > 1e-12 || relErr(e, 1/2400.0) > 1e-12 {
		t.Errorf("thread spacing %v, %v m", w, e)
	}
}

// TestPeirceBendingLength checks a worked example of Peirce's formula: B = 0.1
// gf·cm²/cm and W = 20 mg/cm² give c = (B/W_g)^(1/3) = 1.71 cm, where
// W_g = 0.02 gf/cm².
func TestPeirceBendingLength(t *testing.T) {
	ex := readFile(t, "testdata/example.toml")
	ex = replace(t, ex, `W = { value = 180, unit = "g/m²", si = 0.18,`, `W = { value = 20, unit = "mg/cm²",`)
	ex = replace(t, ex, `B = { value = 0.142,`, `B = { value = 0.1,`)
	f, err := Parse([]byte(ex), "peirce.toml")
	if err != nil {
		t.Fatal(err)
	}
	c := f.BendingLength(Warp)
	want := math.Cbrt(0.1/0.020) / 100 // m
	if relErr(c, want) > 1e-12 || math.Abs(c-0.0171) > 5e-5 {
		t.Errorf("bending length %v m, want %v (1.71 cm)", c, want)
	}
}
