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
// after each candidate stimulus.
func TestPsiChoosesMinimumEntropy(t *testing.T) {
	for _, obj := range []Objective{ObjectiveJoint, ObjectiveThreshold} {
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
					if obj == ObjectiveJoint {
						for _, v := range post {
							ent += binaryTerm(v / z)
						}
					} else {
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
				t.Fatalf("%s trial %d: chose stimulus %d (expected entropy %.12g), brute force minimum %.12g", obj, trial, got, hs[got], bestH)
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
