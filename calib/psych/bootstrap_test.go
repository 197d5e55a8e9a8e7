package psych

import (
	"math"
	"slices"
	"testing"
)

// simulate draws binomial counts from pf at xs, n trials each.
func simulate(pf PF, xs []float64, n int, r rng) []Point {
	pts := make([]Point, len(xs))
	for i, x := range xs {
		pts[i] = Point{X: x, N: n}
		p := pf.Prob(x)
		for range n {
			if r.float64() < p {
				pts[i].K++
			}
		}
	}
	return pts
}

// TestBootstrapContainsEstimate: on many simulated data sets, small and
// ill-conditioned ones included, every interval contains its point
// estimate, and intervals had to be widened to do so only rarely.
func TestBootstrapContainsEstimate(t *testing.T) {
	designs := []struct {
		pf  PF
		opt FitOptions
		xs  []float64
		n   int
	}{
		{must(NewPF(Weibull, 10, 0.5, 3.5, 0.5, 0.01)), FitOptions{Form: Weibull, Gamma: 0.5, Lambda: 0.01}, geom(3, 30, 6), 10},
		{must(NewPF(Logistic, 2.35, 0.5, 3, 0.03, 0.02)), FitOptions{Form: Logistic, FreeGamma: true, FreeLambda: true}, []float64{0, 1.82, 2.22, 2.86, 3.33, 4, 5, 6.67}, 12},
		{must(NewPF(CumNormal, 0, 0.5, 1, 0.5, 0)), FitOptions{Form: CumNormal, Gamma: 0.5}, lin(-2, 2, 5), 6},
		{must(NewPF(Logistic, 5, 0.5, 0.8, 0.5, 0.02)), FitOptions{Form: Logistic, Gamma: 0.5, FreeLambda: true}, lin(1, 9, 9), 20},
	}
	r := newRNG(11, 0)
	widened, total := 0, 0
	for i := range 32 {
		d := designs[i%len(designs)]
		data := simulate(d.pf, d.xs, d.n, r)
		f, err := FitPF(data, d.opt)
		if err != nil {
			t.Fatalf("data set %d: %v", i, err)
		}
		b, err := f.Bootstrap(BootstrapOptions{Samples: 60, Seed: uint64(i)})
		if err != nil {
			t.Fatalf("data set %d: %v", i, err)
		}
		for _, c := range []struct {
			name string
			iv   Interval
			est  float64
		}{{"threshold", b.Threshold, f.Threshold}, {"slope", b.Slope, f.Slope}, {"alpha", b.Alpha, f.PF.Alpha}, {"beta", b.Beta, f.PF.Beta}} {
			total++
			if !c.iv.Contains(c.est) || !(c.iv.Lo <= c.iv.Hi) {
				t.Errorf("data set %d: %s %g outside [%g, %g]", i, c.name, c.est, c.iv.Lo, c.iv.Hi)
			}
			if c.iv.Widened {
				widened++
			}
		}
	}
	if widened > total/20 {
		t.Errorf("%d of %d intervals had to be widened", widened, total)
	}
	t.Logf("%d of %d intervals widened", widened, total)
}

// TestDevianceP: on data simulated from the fitted model, the bootstrap
// goodness-of-fit p-value is uniform (Kolmogorov–Smirnov at the 1% level,
// and a 5-bin χ² at the 0.1% level), and the threshold interval covers the
// truth nearly as often as it claims. Parametric-bootstrap intervals
// under-cover with few trials per level (Wichmann & Hill 2001, II): on 200
// data sets of this design the nominal 90% interval covered 82% at 30
// trials per level and 89% at 100, so the bound here is loose.
func TestDevianceP(t *testing.T) {
	pf := must(NewPF(Weibull, 10, 0.5, 3, 0.5, 0.02))
	xs := geom(4, 25, 6)
	opt := FitOptions{Form: Weibull, Gamma: 0.5, Lambda: 0.02}
	const m = 100
	r := newRNG(5, 0)
	ps := make([]float64, 0, m)
	covered := 0
	for i := range m {
		f, err := FitPF(simulate(pf, xs, 30, r), opt)
		if err != nil {
			t.Fatal(err)
		}
		b, err := f.Bootstrap(BootstrapOptions{Samples: 59, Seed: 1000 + uint64(i), Level: 0.9})
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, b.DevianceP)
		if b.Threshold.Contains(pf.Threshold(0.5)) {
			covered++
		}
	}
	slices.Sort(ps)
	var ks float64
	for i, p := range ps {
		ks = math.Max(ks, math.Max(math.Abs(float64(i+1)/m-p), math.Abs(p-float64(i)/m)))
	}
	var bins [5]int
	for _, p := range ps {
		bins[min(int(p*5), 4)]++
	}
	var chi2 float64
	for _, k := range bins {
		chi2 += (float64(k) - m/5.0) * (float64(k) - m/5.0) / (m / 5.0)
	}
	t.Logf("KS D = %.3f (1%% critical %.3f), χ²(4) = %.2f (0.1%% critical 18.47), bins %v, 90%% CI coverage %d/%d",
		ks, 1.628/math.Sqrt(m), chi2, bins, covered, m)
	if ks > 1.628/math.Sqrt(m) {
		t.Errorf("p-values not uniform: KS D = %.3f", ks)
	}
	if chi2 > 18.47 {
		t.Errorf("p-values not uniform: χ² = %.2f, bins %v", chi2, bins)
	}
	if c := float64(covered) / m; c < 0.72 || c > 0.97 {
		t.Errorf("90%% threshold interval covered the truth in %d of %d data sets", covered, m)
	}
}

// TestBootstrapWorkersDeterministic: the result depends on the seed, not on
// how many goroutines ran it.
func TestBootstrapWorkersDeterministic(t *testing.T) {
	data := simulate(must(NewPF(Logistic, 5, 0.5, 1, 0.5, 0)), lin(2, 8, 7), 20, newRNG(1, 1))
	f, err := FitPF(data, FitOptions{Form: Logistic, Gamma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	a, err := f.Bootstrap(BootstrapOptions{Samples: 60, Seed: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.Bootstrap(BootstrapOptions{Samples: 60, Seed: 3, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if *a != *b {
		t.Errorf("1 worker %+v, 3 workers %+v", a, b)
	}
	if _, err := f.Bootstrap(BootstrapOptions{Samples: 5}); err == nil {
		t.Error("5 samples accepted")
	}
	if _, err := f.Bootstrap(BootstrapOptions{Level: 1}); err == nil {
		t.Error("level 1 accepted")
	}
}
