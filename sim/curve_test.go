package sim

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

// TestCurveMatchesSciPy compares the curves' stress, stiffness and energy
// density with SciPy's PchipInterpolator (testdata/pchip_ref.py).
func TestCurveMatchesSciPy(t *testing.T) {
	raw, err := os.ReadFile("testdata/pchip_ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Curves []struct {
			Name                     string
			Strain, Stress           []float64
			At, Value, Slope, Energy []float64
		}
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	for _, rc := range ref.Curves {
		t.Run(rc.Name, func(t *testing.T) {
			c := Curve{Strain: rc.Strain, Stress: rc.Stress}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			var p pchip
			p.set(c)
			scale := rc.Stress[len(rc.Stress)-1] - rc.Stress[0]
			span := rc.Strain[len(rc.Strain)-1] - rc.Strain[0]
			for i, e := range rc.At {
				s, ds, w := p.eval(e)
				if math.Abs(s-rc.Value[i]) > 1e-12*scale {
					t.Errorf("stress(%g) = %.15g, scipy %.15g", e, s, rc.Value[i])
				}
				if math.Abs(ds-rc.Slope[i]) > 1e-9*scale/span {
					t.Errorf("slope(%g) = %.15g, scipy %.15g", e, ds, rc.Slope[i])
				}
				if math.Abs(w-rc.Energy[i]) > 1e-12*scale*span {
					t.Errorf("energy(%g) = %.15g, scipy %.15g", e, w, rc.Energy[i])
				}
			}
		})
	}
}

// TestCurveExtrapolatesLinearly checks the continuation beyond the data
// and that the energy stays the integral of the stress there.
func TestCurveExtrapolatesLinearly(t *testing.T) {
	m := DefaultMaterial()
	var p pchip
	p.set(m.Weft)
	n := len(m.Weft.Strain)
	last := m.Weft.Strain[n-1]
	s1, d1, _ := p.eval(last)
	for _, e := range []float64{last + 0.01, last + 0.1, -0.02, -0.3} {
		s, ds, w := p.eval(e)
		ref, slope := s1+d1*(e-last), d1
		if e < 0 {
			s0, d0, _ := p.eval(0)
			ref, slope = s0+d0*e, d0
		}
		if math.Abs(s-ref) > 1e-9*math.Abs(ref)+1e-12 || ds != slope {
			t.Errorf("at %g: stress %g slope %g, want %g %g", e, s, ds, ref, slope)
		}
		// Energy by Simpson's rule on a fine grid from 0.
		const k = 2000
		var q float64
		for i := range k + 1 {
			x := e * float64(i) / k
			sx, _, _ := p.eval(x)
			wgt := 2.0
			switch {
			case i == 0 || i == k:
				wgt = 1
			case i%2 == 1:
				wgt = 4
			}
			q += wgt * sx
		}
		q *= e / k / 3
		if math.Abs(w-q) > 1e-6*math.Abs(q) {
			t.Errorf("energy(%g) = %g, quadrature %g", e, w, q)
		}
	}
}

func TestCurveValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Curve
		want string
	}{
		{"one point", Curve{[]float64{0}, []float64{0}}, "at least 2"},
		{"lengths", Curve{[]float64{0, 1}, []float64{0}}, "1 stresses"},
		{"nan", Curve{[]float64{0, math.NaN()}, []float64{0, 1}}, "not finite"},
		{"strain order", Curve{[]float64{0, 0.1, 0.05}, []float64{0, 1, 2}}, "does not increase"},
		{"softening", Curve{[]float64{0, 0.1, 0.2}, []float64{0, 2, 1}}, "decreases"},
		{"flat", Curve{[]float64{0, 0.1}, []float64{0, 0}}, "constant"},
		{"no origin", Curve{[]float64{0.01, 0.1}, []float64{1, 2}}, "does not contain 0"},
		{"prestress", Curve{[]float64{-0.1, 0.1}, []float64{0, 2}}, "stress at zero strain is 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want it to mention %q", err, tc.want)
			}
		})
	}
	if err := LinearCurve(100).Validate(); err != nil {
		t.Errorf("linear curve: %v", err)
	}
}

func TestMaterialValidate(t *testing.T) {
	good := DefaultMaterial()
	if err := good.Validate(); err != nil {
		t.Fatalf("default material: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(m *Material)
		want string
	}{
		{"weft", func(m *Material) { m.Weft.Stress[2] = -1 }, "weft curve"},
		{"poisson", func(m *Material) { m.Poisson = 0.95 }, "poisson"},
		{"viscosity", func(m *Material) { m.Viscosity.Shear = -1 }, "shear viscosity"},
		{"friction order", func(m *Material) { m.FrictionKinetic = m.FrictionStatic + 0.1 }, "kinetic friction"},
		{"bending", func(m *Material) { m.BendWarp = 0 }, "warp bending rigidity"},
		{"mass", func(m *Material) { m.ArealMass = math.Inf(1) }, "areal mass"},
		{"thickness", func(m *Material) { m.Thickness = math.NaN() }, "thickness"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := DefaultMaterial()
			tc.edit(&m)
			err := m.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "sim: ") {
				t.Errorf("Validate() = %v, want a sim: error about %q", err, tc.want)
			}
		})
	}
}
