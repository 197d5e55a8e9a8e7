package kes

import (
	"math"
	"strings"
	"testing"

	"github.com/haptex/haptex/sim"
)

// enclosed is ∫₀^e c dε by the trapezoidal rule on n intervals.
func enclosed(c sim.Curve, e float64, n int) float64 {
	var sum float64
	prev, _ := c.Eval(0)
	for i := 1; i <= n; i++ {
		s, _ := c.Eval(e * float64(i) / float64(n))
		sum += (s + prev) / 2
		prev = s
	}
	return sum * e / float64(n)
}

// TestMaterialBuiltin: every built-in fabric maps to a material sim
// accepts, each field equal to the file's KES value by the conversions of
// FORMAT.md ("Conversions to SI"), written out here by hand.
func TestMaterialBuiltin(t *testing.T) {
	for _, name := range List() {
		f, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := f.Material()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		fm := f.Tensile.MaxLoad.Value * 0.980665 // gf/cm → N/m
		for _, d := range []struct {
			name string
			c    sim.Curve
			v    *TensileValues
			r    float64
		}{{"warp", m.Warp, f.Tensile.Warp, m.Hysteresis.Warp}, {"weft", m.Weft, f.Tensile.Weft, m.Hysteresis.Weft}} {
			// The friction's ratio: a loop loading along (1+r)·σ and
			// unloading along (1-r)·σ gives back RT of the work.
			rt := d.v.RT.Value / 100
			if want := (1 - rt) / (1 + rt); relErr(d.r, want) > 1e-12 {
				t.Errorf("%s %s: tensile friction %.6g, want (1-RT)/(1+RT) = %.6g", name, d.name, d.r, want)
			}
			// The elastic curve times 1 + r is the loading curve.
			em := d.v.EMT.Value / 100
			if s, _ := d.c.Eval(em); relErr((1+d.r)*s, fm) > 1e-9 {
				t.Errorf("%s %s: (1+r)·F(EMT) = %.6g N/m, want F_m %.6g", name, d.name, (1+d.r)*s, fm)
			}
			// The loading curve encloses WT (gf·cm/cm² → J/m²), so its LT is the file's.
			if wt := (1 + d.r) * enclosed(d.c, em, 4000); relErr(wt, d.v.WT.Value*0.980665) > 1e-3 {
				t.Errorf("%s %s: loading curve encloses %.6g J/m², WT is %.6g", name, d.name, wt, d.v.WT.Value*0.980665)
			}
		}
		// The shear friction's saturations: half the mean loop widths
		// (gf/cm → N/m).
		sw, se := f.Shear.Warp, f.Shear.Weft
		if h, want := m.Hysteresis.Shear05, (sw.TwoHG.Value+se.TwoHG.Value)/4*0.980665; relErr(h, want) > 1e-12 {
			t.Errorf("%s: shear saturation at 0.5° %.6g N/m, want 2HG/2 = %.6g", name, h, want)
		}
		if h, want := m.Hysteresis.Shear5, (sw.TwoHG5.Value+se.TwoHG5.Value)/4*0.980665; relErr(h, want) > 1e-12 {
			t.Errorf("%s: shear saturation at 5° %.6g N/m, want 2HG5/2 = %.6g", name, h, want)
		}
		// The fabric's own shear stiffness: KES's G (gf/(cm·deg) → N/(m·rad))
		// less the test tension's part, T per radian (gf/cm → N/m).
		gMean := (f.Shear.Warp.G.Value + f.Shear.Weft.G.Value) / 2
		own := gMean*0.980665*180/math.Pi - f.Shear.Tension.Value*0.980665
		if s, _ := m.Shear.Eval(0.05); relErr(s, own*0.05) > 1e-9 {
			t.Errorf("%s: shear force at 0.05 rad %.6g N/m, want (56.19·G - 0.98·T)·0.05 = %.6g", name, s, own*0.05)
		}
		for _, c := range []struct {
			what      string
			got, want float64
		}{
			{"BendWarp", m.BendWarp, f.Bending.Warp.B.Value * 9.80665e-5},
			{"BendWeft", m.BendWeft, f.Bending.Weft.B.Value * 9.80665e-5},
			{"ArealMass", m.ArealMass, f.Mass.W.Value * 0.01},
			{"Thickness", m.Thickness, f.Compression.T0.Value * 1e-3},
			{"Compression", m.Compression, (f.Compression.MaxPressure.Value - 0.5) * 98.0665 / ((f.Compression.T0.Value - f.Compression.TM.Value) * 1e-3)},
		} {
			if relErr(c.got, c.want) > 1e-9 {
				t.Errorf("%s: %s %.6g, want %.6g", name, c.what, c.got, c.want)
			}
		}
		if m.Viscosity != (sim.Viscosity{}) || m.Poisson != 0 || m.BendTwist != 0 {
			t.Errorf("%s: viscosity %+v, Poisson %v, twist %v: KES measures none of them", name, m.Viscosity, m.Poisson, m.BendTwist)
		}
		if m.Name != name {
			t.Errorf("material name %q, want %q", m.Name, name)
		}
	}
}

// TestMaterialTensileCurves: the sampled curve sim interpolates encloses
// WT within 0.1 % across the physical range of LT (0.3-1.3), so the
// simulation's LT is the file's.
func TestMaterialTensileCurves(t *testing.T) {
	f, err := Builtin("cotton-shirting")
	if err != nil {
		t.Fatal(err)
	}
	tv := f.Tensile.Warp
	for _, lt := range []float64{0.3, 0.45, 0.6, 0.75, 0.9, 1, 1.1, 1.3} {
		tv.WT.Value = lt * f.Tensile.MaxLoad.Value * tv.EMT.Value / 100 / 2
		c, err := f.simTensile(Warp)
		if err != nil {
			t.Fatalf("LT %v: %v", lt, err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("LT %v: %v", lt, err)
		}
		if wt := enclosed(c, tv.EMT.Value/100, 4000); relErr(wt, tv.WT.Value*0.980665) > 1e-3 {
			t.Errorf("LT %v: curve encloses %.6g J/m², WT %.6g (%+.3f %%)", lt, wt, tv.WT.Value*0.980665, 100*(wt/(tv.WT.Value*0.980665)-1))
		}
	}
}

// TestMaterialRawCurve: a file with a raw tensile trace gives sim the
// trace's loading branch, point for point.
func TestMaterialRawCurve(t *testing.T) {
	f, err := Parse([]byte(readFile(t, "testdata/example.toml")), "example.toml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.Material()
	if err != nil {
		t.Fatal(err)
	}
	// points = [[0, 0], [1, 40], [2, 120], [3, 260], [4.2, 500], [3.5, 300], ...] in % and gf/cm.
	wantE := []float64{0, 0.01, 0.02, 0.03, 0.042}
	wantF := []float64{0, 40, 120, 260, 500}
	if len(m.Warp.Strain) != len(wantE) {
		t.Fatalf("warp curve %v, want the 5 loading points", m.Warp)
	}
	// The trace is the loading curve, friction and all: the elastic curve
	// is it over 1 + r.
	k := 1 + m.Hysteresis.Warp
	for i := range wantE {
		if math.Abs(m.Warp.Strain[i]-wantE[i]) > 1e-12 || relErr(k*m.Warp.Stress[i], wantF[i]*0.980665) > 1e-12 && wantF[i] != 0 {
			t.Errorf("point %d: (%v, %v), want (%v, %v/%v)", i, m.Warp.Strain[i], m.Warp.Stress[i], wantE[i], wantF[i]*0.980665, k)
		}
	}
}

func TestLoadingBranch(t *testing.T) {
	c, err := LoadingBranch([]Point{{0.005, 0}, {0.01, 10}, {0.03, 100}, {0.02, 40}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Strain) != 4 || c.Strain[0] != 0 || c.Strain[1] != 0.005 || c.Strain[3] != 0.03 {
		t.Errorf("slack trace: %+v, want the origin prepended and the unloading dropped", c)
	}
	for _, tc := range []struct {
		name string
		pts  []Point
		want string
	}{
		{"one point", []Point{{0, 0}}, "at least 2"},
		{"negative strain", []Point{{-0.01, 0}, {0.01, 5}}, "below zero"},
		{"preloaded", []Point{{0, 3}, {0.01, 5}}, "want 0 at zero strain"},
		{"force dips", []Point{{0, 0}, {0.01, 5}, {0.02, 4}, {0.03, 9}}, "falls"},
		{"strain stalls", []Point{{0, 0}, {0.01, 5}, {0.01, 6}, {0.03, 9}}, "does not increase"},
	} {
		_, err := LoadingBranch(tc.pts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestFingerFriction: kinetic friction is the skin value when measured,
// else MIU; static adds two standard deviations of the friction trace,
// σ = √(π/2)·MMD scaled by kinetic/MIU.
func TestFingerFriction(t *testing.T) {
	f, err := Parse([]byte(readFile(t, "testdata/example.toml")), "example.toml")
	if err != nil {
		t.Fatal(err)
	}
	miu, mmd := (0.205+0.214)/2, (0.021+0.024)/2
	s, k := f.FingerFriction()
	if relErr(k, 0.42) > 1e-12 || relErr(s, 0.42+2*math.Sqrt(math.Pi/2)*mmd*0.42/miu) > 1e-12 {
		t.Errorf("with skin friction: static %v kinetic %v", s, k)
	}
	f.Skin = nil
	s, k = f.FingerFriction()
	if relErr(k, miu) > 1e-12 || relErr(s, miu+2*math.Sqrt(math.Pi/2)*mmd) > 1e-12 {
		t.Errorf("from MIU: static %v kinetic %v", s, k)
	}
}
