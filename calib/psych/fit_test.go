package psych

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// readPoints reads a testdata CSV of x,k,n rows; lines starting with # are
// comments.
func readPoints(t testing.TB, path string) []Point {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	rows, err := csv.NewReader(strings.NewReader(strings.Join(lines, "\n"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var pts []Point
	for _, r := range rows[1:] {
		x, err1 := strconv.ParseFloat(r[0], 64)
		k, err2 := strconv.Atoi(r[1])
		n, err3 := strconv.Atoi(r[2])
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("%s: bad row %v", path, r)
		}
		pts = append(pts, Point{X: x, K: k, N: n})
	}
	return pts
}

// TestFitMatchesSciPy compares FitPF with SciPy maximum-likelihood fits of
// the same models on committed data sets (testdata/scipy_fit.py, output in
// testdata/scipy_fits.json).
func TestFitMatchesSciPy(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "scipy_fits.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Fits []struct {
			Name                               string
			Form                               Form
			Alpha, Beta, Gamma                 float64
			Lambda                             float64 `json:"lambda"`
			Threshold, Slope, Loglik, Deviance float64
			Options                            struct {
				Gamma      float64
				FreeGamma  bool    `json:"free_gamma"`
				Lambda     float64 `json:"lambda"`
				FreeLambda bool    `json:"free_lambda"`
			}
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Fits) < 5 {
		t.Fatalf("only %d reference fits", len(ref.Fits))
	}
	for _, r := range ref.Fits {
		t.Run(r.Name, func(t *testing.T) {
			data := readPoints(t, filepath.Join("testdata", "fits", r.Name+".csv"))
			f, err := FitPF(data, FitOptions{Form: r.Form, Gamma: r.Options.Gamma, FreeGamma: r.Options.FreeGamma,
				Lambda: r.Options.Lambda, FreeLambda: r.Options.FreeLambda})
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Warnings) > 0 {
				t.Errorf("warnings on a regular data set: %q", f.Warnings)
			}
			rel := func(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }
			t.Logf("threshold %.8g (scipy %.8g, rel %.1e), slope %.8g (scipy %.8g, rel %.1e), loglik %.10g (scipy %.10g), status %s",
				f.Threshold, r.Threshold, rel(f.Threshold, r.Threshold), f.Slope, r.Slope, rel(f.Slope, r.Slope), f.LogLik, r.Loglik, f.Status)
			if rel(f.Threshold, r.Threshold) > 0.01 || rel(f.Slope, r.Slope) > 0.01 {
				t.Errorf("threshold %g slope %g, SciPy %g %g: more than 1%% apart", f.Threshold, f.Slope, r.Threshold, r.Slope)
			}
			if rel(f.PF.Alpha, r.Alpha) > 0.01 || rel(f.PF.Beta, r.Beta) > 0.01 {
				t.Errorf("alpha %g beta %g, SciPy %g %g: more than 1%% apart", f.PF.Alpha, f.PF.Beta, r.Alpha, r.Beta)
			}
			if math.Abs(f.PF.Gamma-r.Gamma) > 1e-3 || math.Abs(f.PF.Lambda-r.Lambda) > 1e-3 {
				t.Errorf("gamma %g lambda %g, SciPy %g %g", f.PF.Gamma, f.PF.Lambda, r.Gamma, r.Lambda)
			}
			// Neither optimiser may beat the other by more than rounding.
			if math.Abs(f.LogLik-r.Loglik) > 1e-6*math.Abs(r.Loglik) {
				t.Errorf("loglik %.12g, SciPy %.12g", f.LogLik, r.Loglik)
			}
			if math.Abs(f.Deviance-r.Deviance) > 1e-4*(1+r.Deviance) {
				t.Errorf("deviance %.10g, SciPy %.10g", f.Deviance, r.Deviance)
			}
		})
	}
}

// TestFitGradient checks the analytic gradient of the negative
// log-likelihood against central differences for every form and free-
// parameter combination.
func TestFitGradient(t *testing.T) {
	data := []Point{{0.5, 3, 10}, {1, 5, 12}, {2, 9, 14}, {3, 11, 12}, {4.5, 10, 10}}
	for _, form := range []Form{Logistic, CumNormal, Weibull} {
		for _, free := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			opt, err := resolveFit(data, FitOptions{Form: form, Gamma: 0.1, FreeGamma: free[0], Lambda: 0.02, FreeLambda: free[1]})
			if err != nil {
				t.Fatal(err)
			}
			p := newFitProblem(data, opt)
			u := p.coords(PF{Form: form, Alpha: 1.7, Beta: 1.3, Gamma: 0.12, Lambda: 0.03})
			got := make([]float64, p.dim)
			p.nll(u, got)
			want := fd.Gradient(nil, func(u []float64) float64 { return p.nll(u, nil) }, u, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-5*(1+math.Abs(want[i])) {
					t.Errorf("%v free %v: d/du%d = %g, central difference %g", form, free, i, got[i], want[i])
				}
			}
		}
	}
}

// TestFitRecoversTruth fits expected counts (k = nψ, rounded) from a large
// design; the estimates must land on the generating function.
func TestFitRecoversTruth(t *testing.T) {
	for _, tc := range []struct {
		name string
		pf   PF
		opt  FitOptions
		xs   []float64
	}{
		{"weibull-2afc", must(NewPF(Weibull, 10, 0.5, 3, 0.5, 0.02)), FitOptions{Form: Weibull, Gamma: 0.5, Lambda: 0.02}, geom(2, 40, 12)},
		{"logistic-yesno-free", must(NewPF(Logistic, 2.35, 0.5, 3, 0.05, 0.03)), FitOptions{Form: Logistic, FreeGamma: true, FreeLambda: true}, lin(0, 7, 15)},
		{"cumnormal-yesno", must(NewPF(CumNormal, -1, 0.5, 2, 0, 0)), FitOptions{Form: CumNormal}, lin(-3, 1, 12)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 100000
			var data []Point
			for _, x := range tc.xs {
				data = append(data, Point{X: x, K: int(math.Round(n * tc.pf.Prob(x))), N: n})
			}
			f, err := FitPF(data, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			wantT, wantS := tc.pf.Threshold(0.5), tc.pf.SlopeAt(0.5)
			if math.Abs(f.Threshold-wantT) > 1e-3*math.Abs(wantT) || math.Abs(f.Slope-wantS) > 1e-2*wantS {
				t.Errorf("threshold %g slope %g, truth %g %g (%+v)", f.Threshold, f.Slope, wantT, wantS, f.PF)
			}
		})
	}
}

func TestFitErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []Point
		opt  FitOptions
	}{
		{"one level", []Point{{1, 1, 2}}, FitOptions{}},
		{"same level", []Point{{1, 1, 2}, {1, 2, 2}}, FitOptions{}},
		{"k > n", []Point{{1, 3, 2}, {2, 2, 2}}, FitOptions{}},
		{"nan", []Point{{math.NaN(), 1, 2}, {2, 2, 2}}, FitOptions{}},
		{"no trials", []Point{{1, 0, 0}, {2, 2, 2}}, FitOptions{}},
		{"weibull nonpositive", []Point{{-1, 0, 2}, {0, 2, 2}}, FitOptions{Form: Weibull}},
		{"criterion", []Point{{1, 0, 2}, {2, 2, 2}}, FitOptions{Criterion: 1.5}},
		{"gamma+lambda", []Point{{1, 0, 2}, {2, 2, 2}}, FitOptions{Gamma: 0.6, Lambda: 0.5}},
		{"form", []Point{{1, 0, 2}, {2, 2, 2}}, FitOptions{Form: Form(9)}},
	} {
		if _, err := FitPF(tc.data, tc.opt); err == nil {
			t.Errorf("%s: no error", tc.name)
		} else if !strings.HasPrefix(err.Error(), "psych: ") {
			t.Errorf("%s: error %q lacks the package prefix", tc.name, err)
		}
	}
}

// TestFitDegenerate: data that do not pin the function down (all correct,
// a step) still give a finite fit, with the unidentified parameter named.
func TestFitDegenerate(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []Point
	}{
		{"all positive", []Point{{1, 10, 10}, {2, 10, 10}, {3, 10, 10}}},
		{"step", []Point{{1, 5, 10}, {2, 5, 10}, {3, 10, 10}, {4, 10, 10}}},
		{"flat", []Point{{1, 5, 10}, {2, 5, 10}, {3, 5, 10}}},
	} {
		f, err := FitPF(tc.data, FitOptions{Form: Logistic, Gamma: 0.5})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !finite(f.Threshold) || !finite(f.Slope) || len(f.AtBound)+len(f.Warnings) == 0 {
			t.Errorf("%s: threshold %g slope %g, no warning", tc.name, f.Threshold, f.Slope)
		}
		t.Logf("%s: at bound %v, warnings %q", tc.name, f.AtBound, f.Warnings)
	}
}

func TestTally(t *testing.T) {
	recs := []Record{
		{Trial: Trial{X: 2}, Response: 1, Positive: true},
		{Trial: Trial{X: 1}, Response: 0},
		{Trial: Trial{X: 2}, Response: 0},
		{Trial: Trial{X: 1}, Response: 1, Positive: true},
		{Trial: Trial{X: 1}, Response: 1, Positive: true},
	}
	got := Tally(recs)
	want := []Point{{1, 2, 3}, {2, 1, 2}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Tally = %v, want %v", got, want)
	}
}

func must(pf PF, err error) PF {
	if err != nil {
		panic(err)
	}
	return pf
}

func lin(lo, hi float64, n int) []float64 { return linspace(lo, hi, n) }

func geom(lo, hi float64, n int) []float64 {
	v := linspace(math.Log(lo), math.Log(hi), n)
	for i := range v {
		v[i] = math.Exp(v[i])
	}
	return v
}
