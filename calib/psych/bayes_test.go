package psych

import (
	"math"
	"testing"
)

// TestQuestPosterior compares QUEST's posterior mean and SD with a direct
// evaluation of prior × likelihood on the same grid, written without logs.
func TestQuestPosterior(t *testing.T) {
	c := QuestConfig{Task: TwoAFC, Form: Weibull, Beta: 3, Lambda: 0.02, Scale: Log10, Min: 1, Max: 100, Grid: 121,
		PriorThreshold: 20, PriorSD: 0.4, MaxTrials: 30}
	q, err := NewQuest(c)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := NewObserver(must(NewPF(Weibull, 8, 0.5, 3, 0.5, 0.02)), TwoAFC, 4)
	run(t, q, o, 25, false)
	var sw, m, m2 float64
	for i := range 121 {
		l := 2 * float64(i) / 120
		z := (l - math.Log10(20)) / 0.4
		w := math.Exp(-z * z / 2)
		pf := must(NewPF(Weibull, math.Pow(10, l), 0.5, 3, 0.5, 0.02))
		for _, r := range q.Records() {
			if r.Positive {
				w *= pf.Prob(r.X)
			} else {
				w *= 1 - pf.Prob(r.X)
			}
		}
		sw += w
		m += w * l
		m2 += w * l * l
	}
	m /= sw
	sd := math.Sqrt(m2/sw - m*m)
	e := q.Estimate()
	if math.Abs(e.Level-m) > 1e-9 || math.Abs(e.SD-sd) > 1e-7 {
		t.Errorf("posterior mean %.12g SD %.12g, direct %.12g %.12g", e.Level, e.SD, m, sd)
	}
}

// TestPsiChoosesMinimumEntropy checks Psi's stimulus choice against a brute
// force evaluation of the expected posterior entropy (joint or marginal)
// or of the expected posterior variance of the threshold's level after
// each candidate stimulus.
func TestPsiChoosesMinimumEntropy(t *testing.T) {
	for _, obj := range []Objective{ObjectiveJoint, ObjectiveThreshold, ObjectiveVariance} {
		p, err := NewPsi(PsiConfig{Task: TwoAFC, Form: Logistic, Lambda: 0.02, Scale: Linear, Min: 0, Max: 10, Thresholds: 21,
			BetaMin: 0.3, BetaMax: 5, Betas: 7, Stimuli: 25, MaxTrials: 40, Objective: obj})
		if err != nil {
			t.Fatal(err)
		}
		o, _ := NewObserver(must(NewPF(Logistic, 4, 0.5, 1.5, 0.5, 0.02)), TwoAFC, 2)
		for trial := range 12 {
			nt, nb := len(p.tLevel), len(p.lnBeta)
			bestH := math.Inf(1)
			hs := make([]float64, len(p.stim))
			for s := range p.stim {
				var h float64
				for _, positive := range []bool{true, false} {
					post := make([]float64, nt*nb)
					var z float64
					for j := range nt {
						for k := range nb {
							pf := must(NewPF(Logistic, p.tLevel[j], 0.5, math.Exp(p.lnBeta[k]), 0.5, 0.02))
							l := pf.Prob(p.stim[s])
							if !positive {
								l = 1 - l
							}
							post[j*nb+k] = p.w[j*nb+k] * l
							z += post[j*nb+k]
						}
					}
					var ent float64
					switch obj {
					case ObjectiveJoint:
						for _, v := range post {
							ent += binaryTerm(v / z)
						}
					case ObjectiveVariance:
						var l1, l2 float64
						for j := range nt {
							for k := range nb {
								l1 += post[j*nb+k] / z * p.tLevel[j]
								l2 += post[j*nb+k] / z * p.tLevel[j] * p.tLevel[j]
							}
						}
						ent = l2 - l1*l1
					default:
						for j := range nt {
							var m float64
							for k := range nb {
								m += post[j*nb+k]
							}
							ent += binaryTerm(m / z)
						}
					}
					h += z * ent
				}
				hs[s] = h
				bestH = math.Min(bestH, h)
			}
			// Psi leaves cells of negligible weight out of the sums, so
			// it may pick a stimulus that is optimal to within 1e-9.
			if got := p.choose(); hs[got] > bestH+1e-9 {
				t.Fatalf("%s trial %d: chose stimulus %d (expected objective %.12g), brute force minimum %.12g", obj, trial, got, hs[got], bestH)
			}
			tr, _ := p.Next()
			if err := p.Update(tr, o.Respond(tr.X)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestSweetTargetAndBound(t *testing.T) {
	// For a yes/no logistic or cumulative normal without guessing or
	// lapses the information (ψ')²/(ψ(1−ψ)) peaks at ψ = 0.5.
	for _, f := range []Form{Logistic, CumNormal} {
		if got := sweetTarget(f, 0, 0); math.Abs(got-0.5) > 1e-9 {
			t.Errorf("%v sweet point %g, want 0.5", f, got)
		}
	}
	// Logistic: I = β²F(1−F) ≤ β²/4, so SD ≥ 2/(β√n). Cumulative normal:
	// I ≤ β²φ(0)²/(1/4) = 2β²/π, so SD ≥ √(π/2)/(β√n).
	n := 60
	if got, want := must(NewPF(Logistic, 3, 0.5, 2, 0, 0)).ThresholdSDBound(0.5, n), 2/(2*math.Sqrt(60)); math.Abs(got-want) > 1e-9 {
		t.Errorf("logistic bound %g, want %g", got, want)
	}
	if got, want := must(NewPF(CumNormal, 3, 0.5, 2, 0, 0)).ThresholdSDBound(0.5, n), math.Sqrt(math.Pi/2)/(2*math.Sqrt(60)); math.Abs(got-want) > 1e-9 {
		t.Errorf("cumnormal bound %g, want %g", got, want)
	}
	// The Weibull bound scales with the threshold (a relative bound).
	a := must(NewPF(Weibull, 1, 0.5, 3.5, 0.5, 0.01)).ThresholdSDBound(0.5, n)
	b := must(NewPF(Weibull, 10, 0.5, 3.5, 0.5, 0.01)).ThresholdSDBound(0.5, n)
	if math.Abs(b-10*a) > 1e-9 {
		t.Errorf("weibull bound not relative: %g at 1, %g at 10", a, b)
	}
}

// TestPsiPosterior compares Psi's posterior median and SD of the threshold
// and its slope estimate with a direct evaluation of prior × likelihood on
// the same grid, written without logs: a Gaussian prior on the threshold
// level and a log-normal one on β.
func TestPsiPosterior(t *testing.T) {
	c := PsiConfig{Task: TwoAFC, Form: Weibull, Lambda: 0.02, Scale: DB, Min: 1, Max: 100, Thresholds: 41, BetaMin: 1, BetaMax: 10, Betas: 11,
		Stimuli: 41, PriorThreshold: 20, PriorSD: 8, PriorBeta: 3, PriorBetaSD: 0.4, Objective: ObjectiveThreshold, MaxTrials: 30}
	p, err := NewPsi(c)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := NewObserver(must(NewPF(Weibull, 8, 0.5, 2, 0.5, 0.02)), TwoAFC, 6)
	run(t, p, o, 25, false)
	var sw, m, m2, lb float64
	levels, marginal := make([]float64, 41), make([]float64, 41)
	for j := range 41 {
		l := 40 * float64(j) / 40 // dB from 0 (1) to 40 (100)
		levels[j] = l
		zt := (l - 20*math.Log10(20)) / 8
		for k := range 11 {
			beta := math.Pow(10, float64(k)/10)
			zb := (math.Log(beta) - math.Log(3)) / 0.4
			w := math.Exp(-zt*zt/2) * math.Exp(-zb*zb/2)
			pf := must(NewPF(Weibull, math.Pow(10, l/20), 0.5, beta, 0.5, 0.02))
			for _, r := range p.Records() {
				if r.Positive {
					w *= pf.Prob(r.X)
				} else {
					w *= 1 - pf.Prob(r.X)
				}
			}
			sw += w
			m += w * l
			m2 += w * l * l
			lb += w * math.Log(beta)
			marginal[j] += w
		}
	}
	m /= sw
	sd := math.Sqrt(m2/sw - m*m)
	beta := math.Exp(lb / sw)
	for j := range marginal {
		marginal[j] /= sw
	}
	med := gridQuantile(levels, marginal, 0.5)
	e := p.Estimate()
	if math.Abs(e.Level-med) > 1e-9 || math.Abs(e.Threshold/math.Pow(10, med/20)-1) > 1e-12 || math.Abs(e.SD-sd) > 1e-7 ||
		math.Abs(e.Beta/beta-1) > 1e-9 {
		t.Errorf("posterior median %.12g SD %.12g β %.12g, direct %.12g %.12g %.12g", e.Level, e.SD, e.Beta, med, sd, beta)
	}
	if math.Abs(med-m) < 0.01 {
		t.Errorf("posterior median %.4g and mean %.4g too close to tell apart", med, m)
	}
}

// TestGridQuantile: the median of a posterior symmetric about a grid point
// is that point, and within a cell quantiles are linear.
func TestGridQuantile(t *testing.T) {
	v := []float64{0, 1, 2, 3, 4, 5, 6}
	for _, tc := range []struct {
		w    []float64
		p    float64
		want float64
	}{
		{[]float64{0, 0.1, 0.2, 0.4, 0.2, 0.1, 0}, 0.5, 3},
		{[]float64{0, 0, 0, 0, 0.25, 0.5, 0.25}, 0.5, 5},
		{[]float64{1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6, 0}, 0.5, 2.5},
		{[]float64{1, 0, 0, 0, 0, 0, 0}, 0.5, 0.25},
		{[]float64{0, 0, 0, 0, 0, 0, 1}, 0.5, 5.75},
		{[]float64{0.125, 0.25, 0.25, 0.25, 0.125, 0, 0}, 0.25, 1},
	} {
		if got := gridQuantile(v, tc.w, tc.p); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("gridQuantile(%v, %g) = %g, want %g", tc.w, tc.p, got, tc.want)
		}
	}
}

// TestPsiTablesShared: Psi instances with the same model and grid share
// one set of tables, whatever their priors; a different grid gets its own,
// equal to one built afresh.
func TestPsiTablesShared(t *testing.T) {
	c := PsiConfig{Task: TwoAFC, Form: Weibull, Lambda: 0.01, Scale: DB, Min: 0.5, Max: 100, BetaMin: 1, BetaMax: 8,
		Thresholds: 23, Betas: 5, Stimuli: 19, MaxTrials: 10}
	newPsi := func(c PsiConfig) *Psi {
		p, err := NewPsi(c)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := newPsi(c)
	c.PriorThreshold, c.PriorSD, c.PriorBeta, c.PriorBetaSD = 20, 10, 3, 0.4
	b := newPsi(c)
	if a.psiTables != b.psiTables {
		t.Error("same grid, different priors: tables not shared")
	}
	c.Lambda = 0.02
	d := newPsi(c)
	if d.psiTables == a.psiTables {
		t.Fatal("different lapse rate: tables shared")
	}
	cc := d.Config()
	fresh := newPsiTables(&cc)
	for i := range fresh.p {
		if fresh.p[i] != d.p[i] || fresh.lnp[i] != d.lnp[i] || fresh.lnq[i] != d.lnq[i] || fresh.h[i] != d.h[i] {
			t.Fatalf("cached table differs from a fresh one at %d", i)
		}
	}
	// The top stimulus is the top threshold: ψ = γ + (1 − γ − λ)/2 there
	// whatever β.
	for _, v := range d.p[len(d.p)-cc.Betas:] {
		if math.Abs(v-0.74) > 1e-12 {
			t.Errorf("ψ at the top stimulus and threshold %g, want 0.74", v)
		}
	}
}
