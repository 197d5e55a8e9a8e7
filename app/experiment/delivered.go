package experiment

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"
)

// Delivered is what a run's own trials delivered, against the stimulus
// check that came before them. The check measures the contrast each level
// delivers on the simulated devices in virtual time (its Curve); a run,
// on devices or on their twins, records the cue of every interval it
// played. Each trial's delivered contrast y (for a ratio cue ln((c_test +
// f)/(c_reference + f)); for a detection cue the test cue) is set against
// the check's curve at the trial's level, m, and
//
//	Scale = Σ y·m / Σ m²,
//
// the least-squares factor of y = Scale·m: 1 when the trials delivered
// what the check predicts, below 1 when less reached the finger.
type Delivered struct {
	// Trials counts the trials whose cues were measured in every
	// interval.
	Trials int `json:"trials"`
	// Scale is the factor above and ScaleCI its 95 % interval
	// (Student's t on Trials − 1 degrees of freedom).
	Scale   float64    `json:"scale"`
	ScaleCI [2]float64 `json:"scale_ci"`
	// SD is the spread of one trial's y about Scale·m: for a ratio cue
	// √2 times what the check calls cue_sd when the devices deliver as
	// the twins do.
	SD float64 `json:"sd"`
}

// unmeasuredWhy says why a trial's delivered cue is not measured, and
// what a run on arrays that do not measure their pins proves instead.
const unmeasuredWhy = "an interval's cue could not be computed from its trace: a tactile cue on arrays that do not measure their pins, or whose measurements stopped coming (each frame's acknowledgement and status, as the array reported them, are in traces/), or a force cue whose fingers did not hold the fabric through the phase it is measured over"

// deliveredTolerance is how far Scale may lie from 1, beyond its
// interval, before the run warns: the check's curve has an uncertainty
// of its own (a few per cent of the contrast from its 28 trials), and a
// run on devices delivers through other hardware than the twins.
const deliveredTolerance = 0.2

// delivered computes stream's Delivered from the trials.csv rows (header
// the columns) and the check's report for that stream; nil when fewer
// than three trials were measured at a level the curve gives a contrast
// for, or, for a ratio cue, when the task has no reference interval to
// compare with. unmeasured counts the stream's trials with an interval
// whose cue was not measured (NaN: unmeasuredWhy).
func delivered(header []string, rows [][]string, stream int, rep *StimulusReport, cue *Cue, gain gainFunc) (d *Delivered, unmeasured int) {
	col := make(map[string]int, len(header))
	for i, c := range header {
		col[c] = i
	}
	field := func(row []string, name string) (string, bool) {
		i, ok := col[name]
		if !ok || i >= len(row) {
			return "", false
		}
		return row[i], true
	}
	number := func(row []string, name string) float64 {
		s, ok := field(row, name)
		if !ok {
			return math.NaN()
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	f := cue.Floor(rep.Weber)
	a, b := rep.Curve[0], rep.Curve[1]
	var ys, ms []float64
	for _, row := range rows {
		if s, ok := field(row, "stream"); !ok || s != strconv.Itoa(stream) {
			continue
		}
		x := number(row, "x")
		test, ref, refs := math.NaN(), 0.0, 0
		for i := 1; ; i++ {
			role, ok := field(row, fmt.Sprintf("i%d_role", i))
			if !ok {
				break
			}
			c := number(row, fmt.Sprintf("i%d_cue", i))
			switch role {
			case "test":
				test = c
			case "reference":
				ref, refs = ref+c, refs+1
			}
		}
		if math.IsNaN(test) || math.IsNaN(ref) {
			unmeasured++
			continue
		}
		var y, m float64
		if cue.Absolute > 0 {
			y, m = test, a*x+b*x*x
		} else {
			if refs == 0 || gain == nil {
				continue // no interval to compare with (a torn row, or a task of one interval)
			}
			ref /= float64(refs)
			if !(test+f > 0) || !(ref+f > 0) || !(gain(x) > 0) {
				continue
			}
			u := math.Log(gain(x))
			y, m = math.Log((test+f)/(ref+f)), a*u+b*u*u
		}
		if math.IsNaN(y) || math.IsInf(y, 0) || math.IsNaN(m) || math.IsInf(m, 0) {
			continue
		}
		ys, ms = append(ys, y), append(ms, m)
	}
	var smm, sym float64
	for i := range ys {
		smm, sym = smm+ms[i]*ms[i], sym+ys[i]*ms[i]
	}
	n := len(ys)
	if n < 3 || !(smm > 0) {
		return nil, unmeasured
	}
	d = &Delivered{Trials: n, Scale: sym / smm}
	var ss float64
	for i := range ys {
		r := ys[i] - d.Scale*ms[i]
		ss += r * r
	}
	d.SD = math.Sqrt(ss / float64(n-1))
	h := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975) * d.SD / math.Sqrt(smm)
	d.ScaleCI = [2]float64{d.Scale - h, d.Scale + h}
	if math.IsNaN(h) || math.IsInf(h, 0) || math.IsInf(d.Scale, 0) {
		return nil, unmeasured // cues beyond what a product of two can hold: no fit
	}
	return d, unmeasured
}

// warning says, when the trials delivered other contrasts than the check
// measured (Scale beyond deliveredTolerance of 1 and its interval not
// holding 1), what that means; "" otherwise.
func (d *Delivered) warning() string {
	if d == nil || d.ScaleCI[0] <= 1 && 1 <= d.ScaleCI[1] || math.Abs(d.Scale-1) <= deliveredTolerance {
		return ""
	}
	return fmt.Sprintf("the trials delivered %.2f [%.2f, %.2f] times the contrast the stimulus check measured at their levels, over %d trials: what reached the finger differs from what was checked, so the threshold's nominal levels did not deliver what the check says (on devices, look at their calibration and at how long each interval's stiffness was limited, trials.csv's iN_*_limited_s)",
		d.Scale, d.ScaleCI[0], d.ScaleCI[1], d.Trials)
}
