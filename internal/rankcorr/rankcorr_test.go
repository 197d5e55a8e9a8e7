package rankcorr

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// Spearman against scipy.stats.spearmanr (testdata/spearman.py), ties
// included.
func TestSpearmanScipy(t *testing.T) {
	b, err := os.ReadFile("testdata/spearman.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		KES, Cue []float64
		Spearman float64
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if got := Spearman(c.KES, c.Cue); math.Abs(got-c.Spearman) > 1e-12 {
			t.Errorf("case %d: %.15g, scipy %.15g", i, got, c.Spearman)
		}
	}
}

func TestRanks(t *testing.T) {
	got := Ranks([]float64{3, 1, 3, 2, 3})
	want := []float64{4, 1, 4, 2, 4}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ranks %v, want %v", got, want)
		}
	}
	if s := Spearman([]float64{1}, []float64{1}); !math.IsNaN(s) {
		t.Errorf("one value: %g, want NaN", s)
	}
}
