package psych

import (
	"math"
	"testing"
)

// The cue observer's discrimination threshold is its Weber fraction: it
// chooses the larger of two cues a factor 1 + W apart 75 % of the time
// (no lapses), its Prob says what it does, and with a floor it detects a
// cue of W·floor against nothing 75 % of the time.
func TestCueObserverThreshold(t *testing.T) {
	for _, c := range []struct {
		name              string
		weber, lambda, fl float64
		test, ref         float64
		want              float64
	}{
		{"at threshold", 0.15, 0, 0, 1.15, 1, 0.75},
		{"twice the contrast", 0.15, 0, 0, 1.15 * 1.15, 1, math.NaN()},
		{"lapses", 0.15, 0.04, 0, 10, 1, 0.96},
		{"detection", 0.2, 0, 5, 1, 0, 0.75},
		{"no difference", 0.1, 0.02, 0, 3, 3, 0.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, err := newCueObserver(c.weber, c.lambda, c.fl, TwoAFC, 11)
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			if math.IsNaN(want) {
				want = o.Prob(c.test, c.ref)
			}
			if p := o.Prob(c.test, c.ref); math.Abs(p-want) > 1e-9 {
				t.Errorf("Prob %.6f, want %.6f", p, want)
			}
			const n = 40000
			correct := 0
			for i := range n {
				cues := []float64{c.ref, c.test}
				test := 1
				if i%2 == 1 {
					cues, test = []float64{c.test, c.ref}, 0
				}
				if o.Choose(cues) == test {
					correct++
				}
			}
			p := float64(correct) / n
			if se := math.Sqrt(want * (1 - want) / n); math.Abs(p-want) > 4*se {
				t.Errorf("chose the test %.4f of the time, want %.4f ± %.4f", p, want, se)
			}
		})
	}
}

func TestParseCueObserver(t *testing.T) {
	o, err := ParseCueObserver("cue:weber=0.15,lambda=0.01,seed=3", TwoAFC)
	if err != nil || o.Weber != 0.15 || o.Lambda != 0.01 || o.Seed != 3 || o.Spec != "cue:weber=0.15,lambda=0.01,seed=3" {
		t.Fatalf("%+v, %v", o, err)
	}
	d, err := ParseCueObserver("cue:seed=2", TwoAFC)
	if err != nil || d.SetDefaultWeber(0.23) != nil || d.Weber != 0.23 || d.Spec != "cue:weber=0.23,lambda=0,seed=2" {
		t.Fatalf("defaults: %+v, %v", d, err)
	}
	b, err := o.State()
	if err != nil {
		t.Fatal(err)
	}
	r, err := RestoreCueObserver(b)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if o.Choose([]float64{1, 1.1}) != r.Choose([]float64{1, 1.1}) {
			t.Fatal("a restored observer answers differently")
		}
	}
	for _, bad := range []string{"weber=0.1", "cue:weber=-1", "cue:weber=NaN", "cue:lambda=0.6", "cue:colour=red", "cue:floor=0", "cue:seed=x"} {
		if _, err := ParseCueObserver(bad, TwoAFC); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := ParseCueObserver("cue:weber=0.1", Task{Kind: YesNo}); err == nil {
		t.Error("a cue observer for a yes/no task accepted")
	}
	n, err := ParseObserver("nominal:form=weibull,threshold=12,beta=3,lambda=0.01,seed=7", TwoAFC)
	if err != nil || n.Seed != 7 || n.Spec == "" {
		t.Fatalf("nominal: %+v, %v", n, err)
	}
}

// newCueObserver returns a cue observer for an m-AFC task.
func newCueObserver(weber, lambda, floor float64, task Task, seed uint64) (*CueObserver, error) {
	o := &CueObserver{Weber: weber, Lambda: lambda, Floor: floor, Task: task, Seed: seed, RNG: newRNG(seed, 0xc0e), FloorSet: floor != 0}
	if err := o.validate(); err != nil {
		return nil, err
	}
	o.Spec = o.spec()
	return o, nil
}
