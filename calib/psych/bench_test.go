package psych

import (
	"math"
	"testing"
)

// BenchmarkProcedureRun measures one complete 100-trial run of each
// model-based procedure against a simulated observer, construction
// included (Psi builds its tables once per grid and shares them, so after
// the first run its stimulus choice dominates).
func BenchmarkProcedureRun(b *testing.B) {
	c := studyConditions()[0]
	for _, p := range studyProcedures() {
		if p.name != "quest" && p.name != "psi-threshold" && p.name != "psi-joint" && p.name != "psi-variance" && p.name != "staircase-1u2d" {
			continue
		}
		b.Run("proc="+p.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				pr, err := New(p.make(c))
				if err != nil {
					b.Fatal(err)
				}
				o, _ := NewObserver(c.truth, c.task, uint64(i))
				for !pr.Done() {
					t, _ := pr.Next()
					if err := pr.Update(t, o.Respond(t.X)); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkFit measures one maximum-likelihood fit of a 7-level data set.
func BenchmarkFit(b *testing.B) {
	data := readPoints(b, "testdata/fits/weibull_2afc.csv")
	b.ReportAllocs()
	for range b.N {
		f, err := FitPF(data, FitOptions{Form: Weibull, Gamma: 0.5})
		if err != nil || math.IsNaN(f.Threshold) {
			b.Fatal(err)
		}
	}
}
