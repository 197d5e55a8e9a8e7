package psych

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

func TestPFValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		pf   PF
		x    float64
		want float64
	}{
		{"logistic at alpha", PF{Form: Logistic, Alpha: 2, Beta: 3}, 2, 0.5},
		{"logistic", PF{Form: Logistic, Alpha: 2, Beta: 3}, 3, 1 / (1 + math.Exp(-3))},
		{"cumnormal one sigma", PF{Form: CumNormal, Alpha: 1, Beta: 0.5}, 3, 0.8413447460685429},
		{"weibull at alpha", PF{Form: Weibull, Alpha: 4, Beta: 2}, 4, 1 - 1/math.E},
		{"weibull below zero", PF{Form: Weibull, Alpha: 4, Beta: 2}, -1, 0},
		{"2afc with lapse", PF{Form: Logistic, Alpha: 0, Beta: 1, Gamma: 0.5, Lambda: 0.04}, 0, 0.5 + 0.46*0.5},
		{"2afc far above", PF{Form: Logistic, Alpha: 0, Beta: 1, Gamma: 0.5, Lambda: 0.04}, 100, 0.96},
	} {
		if got := tc.pf.Prob(tc.x); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: ψ(%g) = %.17g, want %.17g", tc.name, tc.x, got, tc.want)
		}
		p, q := tc.pf.probs(tc.x)
		if math.Abs(p+q-1) > 1e-15 {
			t.Errorf("%s: ψ + (1−ψ) = %.17g", tc.name, p+q)
		}
	}
}

// TestPFInverseSlopeGradient checks the threshold, inverse, slope and
// parameter gradient of every form against their definitions and central
// differences.
func TestPFInverseSlopeGradient(t *testing.T) {
	for _, pf := range []PF{
		{Form: Logistic, Alpha: 2, Beta: 3, Gamma: 0.5, Lambda: 0.02},
		{Form: CumNormal, Alpha: -1, Beta: 0.7, Gamma: 0.1, Lambda: 0.05},
		{Form: Weibull, Alpha: 4, Beta: 2.5, Gamma: 0.25, Lambda: 0.01},
	} {
		for _, c := range []float64{0.1, 0.5, 0.632, 0.9} {
			x := pf.Threshold(c)
			if F, _ := pf.Form.cdf(x, pf.Alpha, pf.Beta); math.Abs(F-c) > 1e-12 {
				t.Errorf("%v: F(Threshold(%g)) = %g", pf.Form, c, F)
			}
			p := pf.Prob(x)
			if xi, err := pf.Inverse(p); err != nil || math.Abs(xi-x) > 1e-9*math.Max(1, math.Abs(x)) {
				t.Errorf("%v: Inverse(%g) = %g, %v; want %g", pf.Form, p, xi, err, x)
			}
			d := fd.Derivative(pf.Prob, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			if math.Abs(pf.Slope(x)-d) > 1e-7 {
				t.Errorf("%v: slope at %g = %g, central difference %g", pf.Form, x, pf.Slope(x), d)
			}
			F, Fc, dA, dB := pf.Form.eval(x*1.1, pf.Alpha, pf.Beta)
			if F0, Fc0 := pf.Form.cdf(x*1.1, pf.Alpha, pf.Beta); math.Abs(F-F0) > 1e-14 || math.Abs(Fc-Fc0) > 1e-14*Fc0 {
				t.Errorf("%v: eval F %g, %g; cdf %g, %g", pf.Form, F, Fc, F0, Fc0)
			}
			cA := fd.Derivative(func(a float64) float64 { F, _ := pf.Form.cdf(x*1.1, a, pf.Beta); return F }, pf.Alpha, nil)
			cB := fd.Derivative(func(b float64) float64 { F, _ := pf.Form.cdf(x*1.1, pf.Alpha, b); return F }, pf.Beta, nil)
			if math.Abs(dA-cA) > 1e-6 || math.Abs(dB-cB) > 1e-6 {
				t.Errorf("%v: ∂F/∂α, ∂F/∂β = %g, %g; differences %g, %g", pf.Form, dA, dB, cA, cB)
			}
			if a := pf.Form.alphaFor(x, pf.Beta, c); math.Abs(a-pf.Alpha) > 1e-9*math.Max(1, math.Abs(a)) {
				t.Errorf("%v: alphaFor gives %g, want %g", pf.Form, a, pf.Alpha)
			}
		}
		if _, err := pf.Inverse(pf.Gamma); err == nil {
			t.Errorf("%v: Inverse at the guess rate succeeded", pf.Form)
		}
	}
}

func TestPFValidate(t *testing.T) {
	for _, pf := range []PF{
		{Form: Form(7), Alpha: 1, Beta: 1},
		{Form: Logistic, Alpha: math.NaN(), Beta: 1},
		{Form: Weibull, Alpha: 0, Beta: 1},
		{Form: Logistic, Alpha: 1, Beta: 0},
		{Form: Logistic, Alpha: 1, Beta: 1, Gamma: 0.6, Lambda: 0.4},
		{Form: Logistic, Alpha: 1, Beta: 1, Lambda: -0.1},
	} {
		if pf.Validate() == nil {
			t.Errorf("%+v validated", pf)
		}
	}
}

func TestTextForms(t *testing.T) {
	type all struct {
		F Form
		S Scale
		K TaskKind
	}
	b, err := json.Marshal(all{Weibull, DB, Rating})
	if err != nil || string(b) != `{"F":"weibull","S":"db","K":"rating"}` {
		t.Fatalf("marshal: %s %v", b, err)
	}
	var a all
	if err := json.Unmarshal([]byte(`{"F":"probit","S":"log10","K":"2afc"}`), &a); err != nil || a != (all{CumNormal, Log10, AFC}) {
		t.Errorf("unmarshal: %+v %v", a, err)
	}
	for _, bad := range []string{`{"F":"gauss"}`, `{"S":"ln"}`, `{"K":"3afc"}`} {
		if err := json.Unmarshal([]byte(bad), &a); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// The Weibull's α is the stimulus at F = 1 − 1/e (81.6% correct in 2AFC
// without lapses), not at F = 0.5 (75%): the "threshold" Palamedes reports
// for a Weibull is α, psignifit's is the F = 0.5 point. haptex reports
// the latter as Threshold and keeps α as a parameter.
func ExamplePF_Threshold() {
	pf := PF{Form: Weibull, Alpha: 10, Beta: 3.5, Gamma: 0.5}
	fmt.Printf("alpha %.2f at ψ = %.4f\n", pf.Alpha, pf.Prob(pf.Alpha))
	fmt.Printf("threshold (F = 0.5) %.4f at ψ = %.4f\n", pf.Threshold(0.5), pf.Prob(pf.Threshold(0.5)))
	fmt.Printf("slope there %.4f per unit\n", pf.SlopeAt(0.5))
	// Output:
	// alpha 10.00 at ψ = 0.8161
	// threshold (F = 0.5) 9.0058 at ψ = 0.7500
	// slope there 0.0673 per unit
}

// TestThresholdSDBoundFreeSlope compares the free-slope Cramér–Rao bound
// (Elfving's support function, the dual) with a brute-force search over
// one- and two-stimulus designs (the primal) by SciPy
// (testdata/free_slope_bound.py).
func TestThresholdSDBoundFreeSlope(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "free_slope_bound.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref []struct {
		Form                   Form
		Threshold, Beta, Gamma float64
		Lambda                 float64 `json:"lambda"`
		N                      int
		SDKnownSlope           float64 `json:"sd_known_slope"`
		SDFreeSlope            float64 `json:"sd_free_slope"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	for _, r := range ref {
		pf := must(NewPF(r.Form, r.Threshold, 0.5, r.Beta, r.Gamma, r.Lambda))
		free, known := pf.ThresholdSDBoundFreeSlope(0.5, r.N), pf.ThresholdSDBound(0.5, r.N)
		t.Logf("%s β=%g γ=%g λ=%g: free slope %.6g (SciPy %.6g), known slope %.6g (SciPy %.6g)",
			r.Form, r.Beta, r.Gamma, r.Lambda, free, r.SDFreeSlope, known, r.SDKnownSlope)
		if math.Abs(free/r.SDFreeSlope-1) > 1e-3 {
			t.Errorf("%s β=%g: free-slope bound %.6g, SciPy %.6g", r.Form, r.Beta, free, r.SDFreeSlope)
		}
		if math.Abs(known/r.SDKnownSlope-1) > 1e-3 {
			t.Errorf("%s β=%g: known-slope bound %.6g, SciPy %.6g", r.Form, r.Beta, known, r.SDKnownSlope)
		}
		if free < known*(1-1e-9) {
			t.Errorf("%s β=%g: free-slope bound %.6g below the known-slope bound %.6g", r.Form, r.Beta, free, known)
		}
	}
}
