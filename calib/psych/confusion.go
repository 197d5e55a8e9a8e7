package psych

import (
	"fmt"
	"math"
	"slices"
)

// Confusion is the tally of an identification or matching experiment: on
// each trial one of Stimuli was presented and the subject named one of
// Responses. Counts[i][j] is the number of trials on which stimulus i was
// answered with response j. A response is correct when its name is the
// stimulus's name, so Responses may be the Stimuli themselves
// (identification), the real swatches in front of the subject (matching,
// with a swatch for every virtual fabric or more), or include a "none"
// answer that is never correct.
type Confusion struct {
	Stimuli   []string `json:"stimuli"`
	Responses []string `json:"responses"`
	Counts    [][]int  `json:"counts"`
}

// NewConfusion returns an empty confusion matrix. Names must be non-empty
// and unique within each list; nil responses means the stimuli.
func NewConfusion(stimuli, responses []string) (*Confusion, error) {
	if responses == nil {
		responses = stimuli
	}
	c := &Confusion{Stimuli: slices.Clone(stimuli), Responses: slices.Clone(responses)}
	c.Counts = make([][]int, len(stimuli))
	for i := range c.Counts {
		c.Counts[i] = make([]int, len(responses))
	}
	return c, c.Validate()
}

// Validate reports whether the names and counts make a confusion matrix.
func (c *Confusion) Validate() error {
	if len(c.Stimuli) < 2 || len(c.Responses) < 2 {
		return fmt.Errorf("psych: confusion matrix of %d stimuli and %d responses, need at least 2 of each", len(c.Stimuli), len(c.Responses))
	}
	for what, names := range map[string][]string{"stimulus": c.Stimuli, "response": c.Responses} {
		seen := map[string]bool{}
		for _, n := range names {
			if n == "" {
				return fmt.Errorf("psych: confusion matrix: empty %s name", what)
			}
			if seen[n] {
				return fmt.Errorf("psych: confusion matrix: %s %q named twice", what, n)
			}
			seen[n] = true
		}
	}
	if len(c.Counts) != len(c.Stimuli) {
		return fmt.Errorf("psych: confusion matrix has %d rows for %d stimuli", len(c.Counts), len(c.Stimuli))
	}
	for i, row := range c.Counts {
		if len(row) != len(c.Responses) {
			return fmt.Errorf("psych: confusion matrix row %q has %d columns for %d responses", c.Stimuli[i], len(row), len(c.Responses))
		}
		for j, n := range row {
			if n < 0 {
				return fmt.Errorf("psych: confusion matrix count [%q][%q] = %d negative", c.Stimuli[i], c.Responses[j], n)
			}
		}
	}
	return nil
}

// Add counts one trial by names.
func (c *Confusion) Add(stimulus, response string) error {
	i := slices.Index(c.Stimuli, stimulus)
	if i < 0 {
		return fmt.Errorf("psych: confusion matrix: unknown stimulus %q", stimulus)
	}
	j := slices.Index(c.Responses, response)
	if j < 0 {
		return fmt.Errorf("psych: confusion matrix: unknown response %q (want one of %v)", response, c.Responses)
	}
	c.Counts[i][j]++
	return nil
}

// correctColumn returns, per stimulus, the index of the response that
// names it, or −1.
func (c *Confusion) correctColumn() []int {
	col := make([]int, len(c.Stimuli))
	for i, s := range c.Stimuli {
		col[i] = slices.Index(c.Responses, s)
	}
	return col
}

// ConfusionOptions configures Confusion.Analyse.
type ConfusionOptions struct {
	// Samples is the number of bootstrap replicates of the information
	// transmitted; 0 means 2000.
	Samples int `json:"samples,omitempty" toml:"samples"`
	// Level is the coverage of every interval; 0 means 0.95.
	Level float64 `json:"level,omitempty" toml:"level"`
	// Seed makes the bootstrap reproducible.
	Seed uint64 `json:"seed,omitempty" toml:"seed"`
}

// ConfusionAnalysis is what an identification or matching experiment
// found. Proportions and bits are point estimates with intervals of
// coverage Level.
type ConfusionAnalysis struct {
	Stimuli   []string `json:"stimuli"`
	Responses []string `json:"responses"`
	Counts    [][]int  `json:"counts"`
	Trials    int      `json:"trials"`
	RowTrials []int    `json:"row_trials"`
	// P[i][j] is the proportion of stimulus i's trials answered j, and
	// PInterval its Wilson score interval (Brown, Cai & DasGupta 2001).
	// A stimulus never presented has NaN proportions and intervals.
	P         [][]float64  `json:"p"`
	PInterval [][]Interval `json:"p_interval"`
	// PSimultaneous holds intervals that hold every cell of the matrix at
	// once with coverage Level: Wilson intervals at the level 1 − α/m
	// over the m cells of the rows presented (Goodman 1965's simultaneous
	// multinomial intervals, taken over all rows together: Bonferroni).
	// PInterval's cover each cell alone, so the whole matrix falls within
	// them far less often (about Level^m for independent cells).
	PSimultaneous [][]Interval `json:"p_interval_simultaneous"`
	// PercentCorrect is the percentage of trials answered with the
	// stimulus's own name, with its Wilson interval; ChancePercent is
	// what guessing uniformly among the responses scores. NaN when no
	// response names a stimulus.
	PercentCorrect         float64  `json:"percent_correct"`
	PercentCorrectInterval Interval `json:"percent_correct_interval"`
	ChancePercent          float64  `json:"chance_percent"`
	// InformationBits is the information transmitted (Miller & Nicely
	// 1955) with the Miller–Madow bias correction (see TransmittedBits);
	// PlugInBits is the uncorrected estimate, biased upward. The interval
	// is a parametric bootstrap over rows.
	InformationBits     float64  `json:"information_bits"`
	PlugInBits          float64  `json:"plugin_bits"`
	InformationInterval Interval `json:"information_interval"`
	// InformationBias is the bias of InformationBits that the bootstrap
	// finds in its smoothed world (the median replicate less that world's
	// information); the interval is built round InformationBits −
	// InformationBias. With few trials per stimulus it is large enough to
	// put the estimate above its own interval.
	InformationBias float64 `json:"information_bias_bits"`
	// InformationWarning says why the information's estimate and interval
	// cannot be read at face value: fewer than MinInformationTrials trials
	// of some stimulus presented, or the estimate outside its interval.
	InformationWarning string `json:"information_warning,omitempty"`
	// StimulusBits is the entropy of the stimuli as presented: the most
	// information the experiment could transmit.
	StimulusBits float64 `json:"stimulus_bits"`
	Samples      int     `json:"samples"`
	Level        float64 `json:"level"`
	Seed         uint64  `json:"seed"`
}

// Analyse estimates the confusion matrix's row probabilities, the percent
// correct and the information transmitted, each with an interval.
func (c *Confusion) Analyse(opt ConfusionOptions) (*ConfusionAnalysis, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if opt.Samples == 0 {
		opt.Samples = 2000
	}
	if opt.Level == 0 {
		opt.Level = 0.95
	}
	if opt.Samples < 100 || opt.Samples > 1000000 {
		return nil, fmt.Errorf("psych: confusion bootstrap with %d samples, want 100..1000000", opt.Samples)
	}
	if !(opt.Level > 0 && opt.Level < 1) {
		return nil, fmt.Errorf("psych: confusion interval level %g outside (0, 1)", opt.Level)
	}
	a := &ConfusionAnalysis{Stimuli: c.Stimuli, Responses: c.Responses, Counts: c.Counts,
		Samples: opt.Samples, Level: opt.Level, Seed: opt.Seed}
	a.RowTrials = make([]int, len(c.Counts))
	for i, row := range c.Counts {
		for _, n := range row {
			a.RowTrials[i] += n
		}
		a.Trials += a.RowTrials[i]
	}
	if a.Trials == 0 {
		return nil, fmt.Errorf("psych: confusion matrix has no trials")
	}
	z := probit(0.5 + opt.Level/2)
	cells := 0
	for i, row := range c.Counts {
		if a.RowTrials[i] > 0 {
			cells += len(row)
		}
	}
	zs := probit(1 - (1-opt.Level)/(2*float64(max(cells, 1))))
	a.P = make([][]float64, len(c.Counts))
	a.PInterval = make([][]Interval, len(c.Counts))
	a.PSimultaneous = make([][]Interval, len(c.Counts))
	correct := 0
	cols := c.correctColumn()
	named := false
	for i, row := range c.Counts {
		a.P[i] = make([]float64, len(row))
		a.PInterval[i] = make([]Interval, len(row))
		a.PSimultaneous[i] = make([]Interval, len(row))
		for j, k := range row {
			if a.RowTrials[i] == 0 {
				a.P[i][j], a.PInterval[i][j], a.PSimultaneous[i][j] = nan, Interval{Lo: nan, Hi: nan}, Interval{Lo: nan, Hi: nan}
				continue
			}
			a.P[i][j] = float64(k) / float64(a.RowTrials[i])
			a.PInterval[i][j] = wilson(k, a.RowTrials[i], z)
			a.PSimultaneous[i][j] = wilson(k, a.RowTrials[i], zs)
		}
		if cols[i] >= 0 {
			named = true
			correct += row[cols[i]]
		}
		if a.RowTrials[i] > 0 {
			p := float64(a.RowTrials[i]) / float64(a.Trials)
			a.StimulusBits -= p * math.Log2(p)
		}
	}
	a.PercentCorrect, a.PercentCorrectInterval, a.ChancePercent = nan, Interval{Lo: nan, Hi: nan}, nan
	if named {
		a.PercentCorrect = 100 * float64(correct) / float64(a.Trials)
		iv := wilson(correct, a.Trials, z)
		a.PercentCorrectInterval = Interval{Lo: 100 * iv.Lo, Hi: 100 * iv.Hi}
		a.ChancePercent = 100 / float64(len(c.Responses))
	}
	a.InformationBits, a.PlugInBits = TransmittedBits(c.Counts)
	// The stimuli's entropy is known by design and no channel transmits
	// more; the correction can overshoot it when identification is nearly
	// perfect.
	a.InformationBits = math.Min(a.InformationBits, a.StimulusBits)
	a.InformationInterval, a.InformationBias = informationInterval(c.Counts, a.InformationBits, opt)
	// Nor can its interval reach past it: clipped to where the quantity
	// can lie, the interval covers the truth as often as before.
	a.InformationInterval.Lo = math.Min(a.InformationInterval.Lo, a.StimulusBits)
	a.InformationInterval.Hi = math.Min(a.InformationInterval.Hi, a.StimulusBits)
	fewest := 0
	for _, n := range a.RowTrials {
		if n > 0 && (fewest == 0 || n < fewest) {
			fewest = n
		}
	}
	switch {
	case fewest < MinInformationTrials:
		trials := "trials"
		if fewest == 1 {
			trials = "trial"
		}
		a.InformationWarning = fmt.Sprintf("information transmitted: %d %s of the least presented stimulus, fewer than %d: the estimate %.3g bits carries a bias of about %+.2g bits (the bootstrap's estimate; less it, %.3g bits) and its interval holds the truth less often than %g %%",
			fewest, trials, MinInformationTrials, a.InformationBits, a.InformationBias, a.InformationBits-a.InformationBias, 100*opt.Level)
	case !a.InformationInterval.Contains(a.InformationBits):
		a.InformationWarning = fmt.Sprintf("information transmitted: the estimate %.3g bits lies outside its interval, which corrects a bias of about %+.2g bits that the bootstrap finds; more trials of each stimulus would narrow it",
			a.InformationBits, a.InformationBias)
	}
	return a, nil
}

// MinInformationTrials is the fewest trials of each stimulus from which
// the information's interval held the truth in at least 90 % of simulated
// experiments, with the estimate inside it, for every matrix of
// TestConfusionRecovers (docs/analysis.md): with fewer, the Miller–Madow
// estimate is biased upward by a large part of a bit and can lie above
// its own interval.
const MinInformationTrials = 5

// wilson returns the Wilson score interval of k successes in n trials for
// the normal quantile z. Unlike the Wald interval it has near-nominal
// coverage down to small n and proportions near 0 or 1, and it does not
// collapse to a point when k is 0 or n.
func wilson(k, n int, z float64) Interval {
	nf := float64(n)
	p := float64(k) / nf
	d := 1 + z*z/nf
	c := (p + z*z/(2*nf)) / d
	h := z / d * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	iv := Interval{Lo: math.Max(0, c-h), Hi: math.Min(1, c+h)}
	// At k = 0 and k = n the bound is 0 or 1 exactly; c − h rounds to a
	// few 1e-17 on either side of it, which would exclude a true 0.
	if k == 0 {
		iv.Lo = 0
	}
	if k == n {
		iv.Hi = 1
	}
	return iv
}

// TransmittedBits returns the information transmitted by a confusion
// matrix of counts, in bits: the mutual information of stimulus and
// response under the matrix's own frequencies (Miller & Nicely 1955),
//
//	T = Σᵢⱼ (nᵢⱼ/N) log₂(nᵢⱼ N / (nᵢ. n.ⱼ)),
//
// as plugIn, and corrected for its upward bias by Miller–Madow (Miller
// 1955; Paninski 2003) applied to the entropies T = H(R) − H(R|S) whose
// estimates it biases: with the stimulus counts fixed by the design,
//
//	corrected = plugIn + ((m − 1) − Σᵢ (mᵢ − 1)) / (2N ln 2),
//
// m the number of responses ever given and mᵢ the number given to
// stimulus i. For a matrix of independent rows it subtracts the expected
// bias (S − 1)(R − 1)/(2N ln 2) of the χ² approximation; it is never
// negative.
func TransmittedBits(counts [][]int) (corrected, plugIn float64) {
	var n float64
	col := map[int]float64{}
	for _, row := range counts {
		for j, k := range row {
			n += float64(k)
			col[j] += float64(k)
		}
	}
	if n == 0 {
		return nan, nan
	}
	m, sumMi := 0, 0
	for _, v := range col {
		if v > 0 {
			m++
		}
	}
	for _, row := range counts {
		var ni float64
		mi := 0
		for _, k := range row {
			ni += float64(k)
			if k > 0 {
				mi++
			}
		}
		if mi > 0 {
			sumMi += mi - 1
		}
		for j, k := range row {
			if k > 0 {
				kf := float64(k)
				plugIn += kf / n * math.Log2(kf*n/(ni*col[j]))
			}
		}
	}
	plugIn = math.Max(plugIn, 0)
	corrected = math.Max(plugIn+float64((m-1)-sumMi)/(2*n*math.Ln2), 0)
	return corrected, plugIn
}

// InformationOf returns the information in bits that a channel of
// response probabilities p (rows: stimuli, each summing to 1) transmits
// when stimulus i is presented with probability prior[i]; nil prior means
// equiprobable stimuli. It is the true value TransmittedBits estimates.
func InformationOf(p [][]float64, prior []float64) (float64, error) {
	if len(p) < 2 {
		return nan, fmt.Errorf("psych: information of %d stimuli, need at least 2", len(p))
	}
	if prior == nil {
		prior = make([]float64, len(p))
		for i := range prior {
			prior[i] = 1 / float64(len(p))
		}
	}
	if len(prior) != len(p) {
		return nan, fmt.Errorf("psych: information: %d priors for %d stimuli", len(prior), len(p))
	}
	if err := checkRows(p); err != nil {
		return nan, err
	}
	q := make([]float64, len(p[0]))
	var ps float64
	for i, row := range p {
		if !(prior[i] >= 0) || math.IsInf(prior[i], 0) {
			return nan, fmt.Errorf("psych: information: prior %g of stimulus %d invalid", prior[i], i)
		}
		ps += prior[i]
		for j, v := range row {
			q[j] += prior[i] * v
		}
	}
	if math.Abs(ps-1) > 1e-9 {
		return nan, fmt.Errorf("psych: information: priors sum to %g, not 1", ps)
	}
	var t float64
	for i, row := range p {
		for j, v := range row {
			if v > 0 && prior[i] > 0 {
				t += prior[i] * v * math.Log2(v/q[j])
			}
		}
	}
	return math.Max(t, 0), nil
}

// checkRows reports whether p is a matrix of probability rows.
func checkRows(p [][]float64) error {
	for i, row := range p {
		if len(row) != len(p[0]) || len(row) < 2 {
			return fmt.Errorf("psych: confusion probabilities: row %d has %d columns, want %d (at least 2)", i, len(row), len(p[0]))
		}
		var s float64
		for j, v := range row {
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("psych: confusion probabilities: p[%d][%d] = %g outside [0, 1]", i, j, v)
			}
			s += v
		}
		if math.Abs(s-1) > 1e-9 {
			return fmt.Errorf("psych: confusion probabilities: row %d sums to %g, not 1", i, s)
		}
	}
	return nil
}

// informationInterval returns the parametric-bootstrap interval of the
// corrected information est. Each replicate redraws every row, with its
// own trial count as the design fixed it, from the row's proportions
// smoothed by Perks' pseudocount (1/R per cell for R responses, one trial
// per row in all), p̃ᵢⱼ = (nᵢⱼ + 1/R)/(nᵢ + 1). The raw proportions would
// make the bootstrap world sharper than the truth: a confusion never seen
// could never be drawn, and the intervals of near-perfect identification
// lie above the truth (coverage 80 % instead of 95 % with 10 trials per
// stimulus, see the tests). The interval is the basic one for the
// estimator's error in that world, est + I(p̃) − q(1 − a/2) ..
// est + I(p̃) − q(a/2), q the replicates' quantiles and I(p̃) the world's
// true information (Davison & Hinkley 1997 §5.2), clipped at 0 bits. The
// bias it returns is the estimator's in that world, q(½) − I(p̃).
func informationInterval(counts [][]int, est float64, opt ConfusionOptions) (Interval, float64) {
	var rows [][]float64
	var prior []float64
	var ns []int
	var total float64
	for _, row := range counts {
		var n int
		for _, k := range row {
			n += k
		}
		if n == 0 {
			continue
		}
		p := make([]float64, len(row))
		for j, k := range row {
			p[j] = (float64(k) + 1/float64(len(row))) / (float64(n) + 1)
		}
		rows = append(rows, p)
		ns = append(ns, n)
		prior = append(prior, float64(n))
		total += float64(n)
	}
	for i := range prior {
		prior[i] /= total
	}
	truth := 0.0
	if len(rows) >= 2 {
		truth, _ = InformationOf(rows, prior)
	}
	reps := make([]float64, opt.Samples)
	rep := make([][]int, len(rows))
	for i := range rep {
		rep[i] = make([]int, len(rows[i]))
	}
	cum := make([]float64, len(counts[0]))
	for b := range reps {
		r := newRNG(opt.Seed, uint64(b))
		for i, p := range rows {
			clear(rep[i])
			var c float64
			for j, v := range p {
				c += v
				cum[j] = c
			}
			for range ns[i] {
				u := (1 - r.float64()) * c
				j, _ := slices.BinarySearch(cum, u)
				rep[i][min(j, len(p)-1)]++
			}
		}
		reps[b], _ = TransmittedBits(rep)
	}
	slices.Sort(reps)
	a := (1 - opt.Level) / 2
	return Interval{
		Lo: math.Max(0, est+truth-quantileSorted(reps, 1-a)),
		Hi: math.Max(0, est+truth-quantileSorted(reps, a)),
	}, quantileSorted(reps, 0.5) - truth
}
