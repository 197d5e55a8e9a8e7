package psych

import (
	"flag"
	"math"
	"strings"
	"testing"
)

var (
	confSeeds = flag.Int("psych.confseeds", 0, "seeded observers per matrix in the confusion coverage test (the short run uses 50)")
	confN     = flag.Int("psych.confn", 0, "trials per stimulus in the confusion coverage test (the short run uses 20)")
)

// fiveFabrics is a matching observer's confusions among five fabrics
// ordered by one property: mostly right, confused with the neighbours.
var fiveFabrics = [][]float64{
	{0.70, 0.15, 0.10, 0.05, 0},
	{0.15, 0.60, 0.15, 0.05, 0.05},
	{0.05, 0.15, 0.60, 0.15, 0.05},
	{0, 0.05, 0.15, 0.65, 0.15},
	{0, 0, 0.10, 0.20, 0.70},
}

// sixNear is near-perfect identification of six fabrics: the sparse
// matrix whose information interval a bootstrap from the raw proportions
// places too high.
var sixNear = [][]float64{
	{0.9, 0.1, 0, 0, 0, 0},
	{0.1, 0.85, 0.05, 0, 0, 0},
	{0, 0.05, 0.9, 0.05, 0, 0},
	{0, 0, 0.05, 0.9, 0.05, 0},
	{0, 0, 0, 0.05, 0.9, 0.05},
	{0, 0, 0, 0, 0.1, 0.9},
}

// fourPoor is poor identification of four fabrics: little information,
// where the estimate's upward bias is largest against the truth.
var fourPoor = [][]float64{
	{0.4, 0.3, 0.2, 0.1},
	{0.3, 0.35, 0.25, 0.1},
	{0.15, 0.25, 0.35, 0.25},
	{0.1, 0.15, 0.3, 0.45},
}

func simulateConfusion(t *testing.T, m [][]float64, perStimulus int, seed uint64) *Confusion {
	t.Helper()
	names := []string{"calico", "denim", "felt", "linen", "satin", "tweed"}[:len(m)]
	c, err := NewConfusion(names, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := NewMatchingObserver(m, seed)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m {
		for range perStimulus {
			r, err := o.Respond(i)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Add(c.Stimuli[i], c.Responses[r]); err != nil {
				t.Fatal(err)
			}
		}
	}
	return c
}

// TestConfusionRecovers runs a matching experiment of realistic size (a
// set of fabrics, each presented 20 times: 80 to 120 trials, one
// session) with 50 seeded observers whose confusions are set, and counts
// how often the 95 % intervals hold the truth: every cell of every seed's
// matrix counts once (50 × 25 = 1250 cells for five fabrics), and the
// information once per seed.
func TestConfusionRecovers(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    [][]float64
	}{{"five-fabrics", fiveFabrics}, {"six-near-perfect", sixNear}, {"four-poor", fourPoor}} {
		t.Run(tc.name, func(t *testing.T) {
			seeds, perStimulus := 50, 20
			if *confSeeds > 0 {
				seeds = *confSeeds
			}
			if *confN > 0 {
				perStimulus = *confN
			}
			truth, err := InformationOf(tc.m, nil)
			if err != nil {
				t.Fatal(err)
			}
			var cells, cellsIn, infoIn, wholeIn, wholeSimIn int
			var sumCorr, sumPlug float64
			for s := range uint64(seeds) {
				a, err := simulateConfusion(t, tc.m, perStimulus, s).Analyse(ConfusionOptions{Samples: 1000, Seed: s})
				if err != nil {
					t.Fatal(err)
				}
				whole, wholeSim := true, true
				for i, row := range tc.m {
					for j, p := range row {
						cells++
						if a.PInterval[i][j].Contains(p) {
							cellsIn++
						} else {
							whole = false
						}
						if !a.PSimultaneous[i][j].Contains(p) {
							wholeSim = false
						}
						if !(a.PSimultaneous[i][j].Lo <= a.PInterval[i][j].Lo && a.PSimultaneous[i][j].Hi >= a.PInterval[i][j].Hi) {
							t.Errorf("seed %d, cell %d,%d: simultaneous interval %+v inside the cell's own %+v", s, i, j, a.PSimultaneous[i][j], a.PInterval[i][j])
						}
					}
				}
				if whole {
					wholeIn++
				}
				if wholeSim {
					wholeSimIn++
				}
				if a.InformationInterval.Contains(truth) {
					infoIn++
				}
				if !a.InformationInterval.Contains(a.InformationBits) {
					t.Errorf("seed %d: information %.3f outside its own interval %+v", s, a.InformationBits, a.InformationInterval)
				}
				if iv := a.InformationInterval; iv.Lo < 0 || iv.Hi > a.StimulusBits {
					t.Errorf("seed %d: information interval %+v reaches outside 0 to the stimuli's %.3f bits", s, iv, a.StimulusBits)
				}
				sumCorr += a.InformationBits
				sumPlug += a.PlugInBits
			}
			cellCov, infoCov := float64(cellsIn)/float64(cells), float64(infoIn)/float64(seeds)
			simCov := float64(wholeSimIn) / float64(seeds)
			t.Logf("cells within their 95 %% intervals: %d of %d (%.1f %%); the whole matrix within them in %d of %d seeds, within the simultaneous intervals in %d; information %.3f bits within its interval in %d of %d seeds; mean estimate %.3f (plug-in %.3f)",
				cellsIn, cells, 100*cellCov, wholeIn, seeds, wholeSimIn, truth, infoIn, seeds, sumCorr/float64(seeds), sumPlug/float64(seeds))
			if cellCov < 0.9 {
				t.Errorf("cell coverage %.3f, want >= 0.9", cellCov)
			}
			// The whole matrix at once: the goal's reading of "the
			// estimated matrix within its 95 % intervals".
			if simCov < 0.9 {
				t.Errorf("the whole matrix within its simultaneous intervals in %d of %d seeds, want >= 90 %%", wholeSimIn, seeds)
			}
			if infoCov < 0.9 {
				t.Errorf("information coverage %.3f, want >= 0.9", infoCov)
			}
			// The correction must reduce the plug-in's bias (to half of it
			// on the five fabrics; little on the sparse matrix, where
			// Miller–Madow counts only the cells used).
			if bc, bp := math.Abs(sumCorr/float64(seeds)-truth), sumPlug/float64(seeds)-truth; !(bc < bp) {
				t.Errorf("corrected bias %.3f bits not below the plug-in's %.3f", bc, bp)
			}
		})
	}
}

// Identification at or near perfect: the interval of the information
// transmitted stays within what the stimuli can carry (the bootstrap's
// basic interval reached 2.51 bits of 2.32 for five fabrics each named
// right 8 times).
func TestInformationIntervalWithinStimulusBits(t *testing.T) {
	for _, tc := range []struct {
		name        string
		n, per, off int // stimuli, trials of each, of them named wrong
	}{{"five perfect", 5, 8, 0}, {"three perfect", 3, 20, 0}, {"five, one wrong each", 5, 8, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			names := make([]string, tc.n)
			for i := range names {
				names[i] = string(rune('a' + i))
			}
			c, err := NewConfusion(names, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range names {
				for k := range tc.per {
					r := s
					if k < tc.off {
						r = names[(i+1)%tc.n]
					}
					if err := c.Add(s, r); err != nil {
						t.Fatal(err)
					}
				}
			}
			a, err := c.Analyse(ConfusionOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			iv := a.InformationInterval
			t.Logf("%.3f bits [%.3f, %.3f] of %.3f", a.InformationBits, iv.Lo, iv.Hi, a.StimulusBits)
			if iv.Hi > a.StimulusBits || !iv.Contains(a.InformationBits) || !(iv.Lo < iv.Hi) {
				t.Errorf("%.3f bits, interval %+v: want an interval round the estimate within the stimuli's %.3f bits", a.InformationBits, iv, a.StimulusBits)
			}
		})
	}
}

// TestInformationWarning: with fewer than MinInformationTrials trials of a
// stimulus the information's estimate is biased by a large part of a bit
// and lay above its own interval in 140, 127 and 71 of 150 simulated
// experiments at 1, 2 and 3 trials (the three matrices of
// TestConfusionRecovers, 50 seeds each), so the analysis says so; from 5
// trials none did, and nothing is said.
func TestInformationWarning(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    [][]float64
		per  int
		warn bool
	}{
		{"five, 1 trial", fiveFabrics, 1, true},
		{"four poor, 2 trials", fourPoor, 2, true},
		{"six near-perfect, 4 trials", sixNear, 4, true},
		{"five, 5 trials", fiveFabrics, 5, false},
		{"four poor, 20 trials", fourPoor, 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for s := range uint64(10) {
				a, err := simulateConfusion(t, tc.m, tc.per, s).Analyse(ConfusionOptions{Samples: 1000, Seed: s})
				if err != nil {
					t.Fatal(err)
				}
				if got := a.InformationWarning != ""; got != tc.warn {
					t.Fatalf("seed %d: %.3g bits %+v, bias %.3g: warning %q, want one: %v", s, a.InformationBits, a.InformationInterval, a.InformationBias, a.InformationWarning, tc.warn)
				}
				if c := a.InformationBits - a.InformationBias; !a.InformationInterval.Contains(c) && c > 0 {
					t.Errorf("seed %d: the bias-corrected %.3g bits outside the interval %+v", s, c, a.InformationInterval)
				}
				if tc.warn && s == 0 {
					t.Log(a.InformationWarning)
				}
			}
		})
	}
	// One stimulus presented twice among stimuli presented 20 times.
	c := simulateConfusion(t, fiveFabrics, 20, 1)
	c.Counts[4] = []int{0, 0, 0, 1, 1}
	a, err := c.Analyse(ConfusionOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a.InformationWarning, "2 trials of the least presented stimulus") {
		t.Errorf("a stimulus presented twice: warning %q", a.InformationWarning)
	}
}

// TestTransmittedBitsValues checks the estimators against the entropy
// form T = H(S) + H(R) − H(S, R), computed independently by hand.
func TestTransmittedBitsValues(t *testing.T) {
	h := func(p ...float64) float64 {
		var s float64
		for _, v := range p {
			if v > 0 {
				s -= v * math.Log2(v)
			}
		}
		return s
	}
	counts := [][]int{{8, 2, 0}, {3, 6, 1}, {0, 1, 9}}
	// N = 30; rows 10, 10, 10; columns 11, 9, 10.
	hs := h(1./3, 1./3, 1./3)
	hr := h(11./30, 9./30, 10./30)
	hsr := h(8./30, 2./30, 3./30, 6./30, 1./30, 1./30, 9./30)
	want := hs + hr - hsr
	// m = 3 responses used; rows use 2, 3 and 2: ((3−1) − (1 + 2 + 1)) / (2·30·ln 2).
	wantMM := want + float64(2-4)/(60*math.Ln2)
	corr, plug := TransmittedBits(counts)
	if math.Abs(plug-want) > 1e-12 || math.Abs(corr-wantMM) > 1e-12 {
		t.Errorf("TransmittedBits = %.15g, %.15g; want %.15g, %.15g", corr, plug, wantMM, want)
	}
	// A binary symmetric channel with error e transmits 1 − H(e).
	for _, e := range []float64{0, 0.1, 0.25, 0.5} {
		got, err := InformationOf([][]float64{{1 - e, e}, {e, 1 - e}}, nil)
		if err != nil || math.Abs(got-(1-h(e, 1-e))) > 1e-12 {
			t.Errorf("binary channel e=%g: %g, %v; want %g", e, got, err, 1-h(e, 1-e))
		}
	}
	// Perfect identification of 4 stimuli transmits 2 bits, and the
	// corrected estimate never exceeds the stimuli's entropy.
	c, _ := NewConfusion([]string{"a", "b", "c", "d"}, nil)
	for i := range 4 {
		for range 5 {
			if err := c.Add(c.Stimuli[i], c.Responses[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, err := c.Analyse(ConfusionOptions{Samples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if a.PlugInBits != 2 || a.InformationBits != 2 || a.StimulusBits != 2 || a.PercentCorrect != 100 {
		t.Errorf("perfect 4×4: plug-in %g, corrected %g, stimulus %g bits, %g %% correct; want 2, 2, 2, 100", a.PlugInBits, a.InformationBits, a.StimulusBits, a.PercentCorrect)
	}
}

func TestWilson(t *testing.T) {
	// Brown, Cai & DasGupta (2001): 0 of 10 at 95 % is [0, 0.2775]; 5 of
	// 10 is [0.2366, 0.7634].
	z := probit(0.975)
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{{0, 10, 0, 0.27753}, {5, 10, 0.23659, 0.76341}, {10, 10, 0.72247, 1}} {
		iv := wilson(tc.k, tc.n, z)
		if math.Abs(iv.Lo-tc.lo) > 5e-5 || math.Abs(iv.Hi-tc.hi) > 5e-5 {
			t.Errorf("wilson(%d, %d) = [%.5f, %.5f], want [%.5f, %.5f]", tc.k, tc.n, iv.Lo, iv.Hi, tc.lo, tc.hi)
		}
	}
}

func TestMatchingAnalysisByName(t *testing.T) {
	// Matching against swatches with an extra "none" answer: only names
	// that match count as correct, and chance is one in four.
	c, err := NewConfusion([]string{"denim", "felt", "satin"}, []string{"satin", "felt", "denim", "none"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range [][2]string{{"denim", "denim"}, {"denim", "none"}, {"felt", "felt"}, {"felt", "satin"}, {"satin", "satin"}, {"satin", "satin"}} {
		if err := c.Add(tr[0], tr[1]); err != nil {
			t.Fatal(err)
		}
	}
	a, err := c.Analyse(ConfusionOptions{Samples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.PercentCorrect-400.0/6) > 1e-12 || a.ChancePercent != 25 || a.Counts[0][2] != 1 || a.Counts[0][3] != 1 {
		t.Errorf("percent correct %g (want 66.7), chance %g (want 25), counts %v", a.PercentCorrect, a.ChancePercent, a.Counts)
	}
	if !a.PercentCorrectInterval.Contains(a.PercentCorrect) || a.PercentCorrectInterval.Lo <= 0 || a.PercentCorrectInterval.Hi >= 100 {
		t.Errorf("percent correct interval %+v", a.PercentCorrectInterval)
	}
}

func TestConfusionErrors(t *testing.T) {
	if _, err := NewConfusion([]string{"a"}, nil); err == nil {
		t.Error("one stimulus accepted")
	}
	if _, err := NewConfusion([]string{"a", "a"}, nil); err == nil {
		t.Error("repeated name accepted")
	}
	if _, err := NewConfusion([]string{"a", ""}, nil); err == nil {
		t.Error("empty name accepted")
	}
	c, _ := NewConfusion([]string{"a", "b"}, nil)
	if err := c.Add("a", "c"); err == nil {
		t.Error("unknown response accepted")
	}
	if err := c.Add("c", "a"); err == nil {
		t.Error("unknown stimulus accepted")
	}
	if _, err := c.Analyse(ConfusionOptions{}); err == nil {
		t.Error("empty matrix analysed")
	}
	c.Counts[1] = []int{1}
	if _, err := c.Analyse(ConfusionOptions{}); err == nil {
		t.Error("ragged matrix analysed")
	}
	c.Counts[1] = []int{1, -1}
	if _, err := c.Analyse(ConfusionOptions{}); err == nil {
		t.Error("negative count analysed")
	}
	for _, m := range [][][]float64{
		{{1, 0}},
		{{0.5, 0.6}, {0.5, 0.5}},
		{{math.NaN(), 1}, {0.5, 0.5}},
		{{0.5, 0.5}, {1}},
	} {
		if _, err := NewMatchingObserver(m, 1); err == nil {
			t.Errorf("matching observer %v accepted", m)
		}
	}
	o, _ := NewMatchingObserver(fiveFabrics, 1)
	if _, err := o.Respond(5); err == nil {
		t.Error("stimulus 5 of 5 answered")
	}
}

func TestMatchingObserver(t *testing.T) {
	o, err := NewMatchingObserver(fiveFabrics, 7)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	for i, row := range fiveFabrics {
		var got [5]int
		for range n {
			r, err := o.Respond(i)
			if err != nil {
				t.Fatal(err)
			}
			got[r]++
		}
		for j, p := range row {
			// Four binomial standard errors; a zero cell must stay empty.
			if se := math.Sqrt(p * (1 - p) / n); math.Abs(float64(got[j])/n-p) > 4*se || (p == 0 && got[j] != 0) {
				t.Errorf("stimulus %d response %d: frequency %.4f, want %.2f", i, j, float64(got[j])/n, p)
			}
		}
	}
}
