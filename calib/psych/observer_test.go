package psych

import (
	"math"
	"strings"
	"testing"
)

// TestObserverFrequencies: response rates match ψ within 4.5 binomial
// standard errors (seeded, so the test is deterministic).
func TestObserverFrequencies(t *testing.T) {
	pf := must(NewPF(Weibull, 10, 0.5, 3.5, 0.5, 0.02))
	o, err := NewObserver(pf, TwoAFC, 7)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	for _, x := range []float64{2, 8, 10, 14, 40} {
		k := 0
		for range n {
			k += int(o.Respond(x))
		}
		p := pf.Prob(x)
		if se := math.Sqrt(p * (1 - p) / n); math.Abs(float64(k)/n-p) > 4.5*se+1e-9 {
			t.Errorf("x=%g: rate %.4f, ψ %.4f", x, float64(k)/n, p)
		}
	}
}

func TestRatingObserver(t *testing.T) {
	task := Task{Kind: Rating, Levels: 4, Criterion: 3}
	pf := must(NewPF(Logistic, 5, 0.5, 2, 0.02, 0.02))
	th := []float64{4, 5, 6.5}
	o, err := NewRatingObserver(pf, task, th, 3)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	for _, x := range []float64{3, 5, 7} {
		var atLeast [5]int
		for range n {
			r := o.Respond(x)
			if r < 1 || r > 4 {
				t.Fatalf("rating %d", r)
			}
			for k := 1; k <= int(r); k++ {
				atLeast[k]++
			}
		}
		for k := 2; k <= 4; k++ {
			p := must(NewPF(Logistic, th[k-2], 0.5, 2, 0.02, 0.02)).Prob(x)
			if se := math.Sqrt(p * (1 - p) / n); math.Abs(float64(atLeast[k])/n-p) > 4.5*se {
				t.Errorf("x=%g: P(rating ≥ %d) = %.4f, want %.4f", x, k, float64(atLeast[k])/n, p)
			}
		}
	}
	if _, err := NewRatingObserver(pf, task, []float64{4, 6, 5}, 1); err == nil {
		t.Error("decreasing rating thresholds accepted")
	}
	if _, err := NewRatingObserver(pf, task, []float64{4, 6}, 1); err == nil {
		t.Error("too few rating thresholds accepted")
	}
}

func TestParseObserver(t *testing.T) {
	o, err := ParseObserver("sim:form=weibull,threshold=10,beta=3.5,lambda=0.01,seed=7", TwoAFC)
	if err != nil {
		t.Fatal(err)
	}
	if o.PF.Form != Weibull || math.Abs(o.PF.Threshold(0.5)-10) > 1e-12 || o.PF.Beta != 3.5 || o.PF.Gamma != 0.5 || o.PF.Lambda != 0.01 {
		t.Errorf("parsed %+v", o.PF)
	}
	o2, _ := ParseObserver("sim:form=weibull,threshold=10,beta=3.5,lambda=0.01,seed=7", TwoAFC)
	for range 50 {
		if o.Respond(10) != o2.Respond(10) {
			t.Fatal("same seed, different responses")
		}
	}
	r, err := ParseObserver("sim:form=logistic,alpha=5,beta=2,gamma=0.03,ratings=4;5;6.5", Task{Kind: Rating, Levels: 4, Criterion: 3})
	if err != nil || len(r.RatingThresholds) != 3 || r.PF.Alpha != 5 {
		t.Errorf("rating observer %+v, %v", r, err)
	}
	for _, bad := range []string{
		"form=weibull,threshold=10,beta=3",
		"sim:form=weibull,threshold=10",
		"sim:form=weibull,threshold=10,alpha=3,beta=2",
		"sim:form=gauss,threshold=10,beta=2",
		"sim:threshold=abc,beta=2",
		"sim:threshold=NaN,beta=2",
		"sim:threshold=1,beta=2,gamma=0.3",
		"sim:threshold=1,beta=-2",
		"sim:threshold=1,beta=2,colour=red",
		"sim:threshold=1,beta=2,ratings=1;2",
		"sim:threshold=1,beta",
		"sim:form=weibull,threshold=-1,beta=2",
	} {
		if _, err := ParseObserver(bad, TwoAFC); err == nil {
			t.Errorf("%q accepted", bad)
		} else if !strings.HasPrefix(err.Error(), "psych: ") {
			t.Errorf("%q: error %q lacks the package prefix", bad, err)
		}
	}
}

func FuzzParseObserver(f *testing.F) {
	f.Add("sim:form=weibull,threshold=10,beta=3.5,lambda=0.01,seed=7")
	f.Add("sim:form=logistic,alpha=5,beta=2,gamma=0.03,ratings=4;5;6.5")
	f.Add("sim:")
	f.Fuzz(func(t *testing.T, s string) {
		for _, task := range []Task{TwoAFC, {Kind: YesNo}, {Kind: Rating, Levels: 4, Criterion: 2}} {
			o, err := ParseObserver(s, task)
			if err != nil {
				continue
			}
			r := o.Respond(o.PF.Threshold(0.5))
			if _, err := task.Positive(r); err != nil {
				t.Fatalf("%q: response %d invalid: %v", s, r, err)
			}
		}
	})
}
