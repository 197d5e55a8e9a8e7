package haptics

import (
	"fmt"
	"math"
	"math/cmplx"
	"time"

	devsim "github.com/haptex/haptex/devices/sim"
	"github.com/haptex/haptex/haptics/exo"
	"github.com/haptex/haptex/sim"
)

// StepResult is the response of the true fingertip force to a step of the
// desired force, the finger holding still.
type StepResult struct {
	StepN        float64 // step size [N]
	RiseMs       float64 // 10 % to 90 % of the final value [ms]
	OvershootPct float64 // peak above the final value [% of the step]
	SteadyErrPct float64 // |final - step| [% of the step], final = mean over the last 100 ms
	SettleMs     float64 // last time outside ±5 % of the step [ms after the step]
}

// runStep applies a step of stepN newtons against the index pad (the force
// a touched surface would exert) 0.3 s after the finger became active,
// and measures the true pulp force for 0.5 s.
func runStep(cfg Config, p devsim.ExoParams, stepN float64) (StepResult, error) {
	cfg.Model.SlewNPerS = 0 // a step, not a blended sim update
	f := sim.Index
	home := homePad(p, f)
	r, err := newSimRig(cfg, p, [sim.NumFingers]devsim.Intent{nil, holdIntent{home}})
	if err != nil {
		return StepResult{}, err
	}
	if err := r.waitActive(time.Second); err != nil {
		return StepResult{}, err
	}
	dir := exo.Scale(-1, pressDir(f))
	for end := r.t + 300*time.Millisecond; r.t < end; {
		r.tick()
	}
	forceModel(&r.in.Local[f], exo.Scale(stepN, dir), 1)
	t0 := r.t
	var ts, fs []float64
	for r.t < t0+500*time.Millisecond {
		r.tick()
		tr := r.exos[f].Truth()
		ts = append(ts, (tr.T-t0).Seconds()*1e3)
		fs = append(fs, exo.Dot(tr.Force, dir))
	}
	return stepMetrics(ts, fs, stepN), nil
}

func stepMetrics(ts, fs []float64, step float64) StepResult {
	res := StepResult{StepN: step}
	var final float64
	n := 0
	for i, t := range ts {
		if t >= ts[len(ts)-1]-100 {
			final += fs[i]
			n++
		}
	}
	final /= float64(n)
	t10, t90 := math.NaN(), math.NaN()
	peak := math.Inf(-1)
	for i, t := range ts {
		if math.IsNaN(t10) && fs[i] >= 0.1*final {
			t10 = t
		}
		if math.IsNaN(t90) && fs[i] >= 0.9*final {
			t90 = t
		}
		peak = math.Max(peak, fs[i])
		if math.Abs(fs[i]-step) > 0.05*step {
			res.SettleMs = t
		}
	}
	res.RiseMs = t90 - t10
	res.OvershootPct = math.Max(0, 100*(peak-final)/step)
	res.SteadyErrPct = 100 * math.Abs(final-step) / step
	return res
}

// TransparencyResult is the residual force the finger feels while it moves
// freely with zero desired force.
type TransparencyResult struct {
	SpeedMps   float64
	ConstMaxN  float64 // max |F| during the constant-speed phases [N]
	AllMaxN    float64 // max |F| over the motion, starts, stops and reversals included [N]
	ConstRMSN  float64 // RMS |F| during the constant-speed phases [N]
	PeakAccel  float64 // peak acceleration of the intent [m/s²]
	StrokeM    float64
	Directions int
}

// transparencyAccel is the peak acceleration of starts, stops and
// reversals in the transparency runs: a brisk stroke of a finger.
const transparencyAccel = 2.0

// runTransparency strokes the index finger back and forth (two strokes
// each way) at speed v along world x (the stroke direction of the scene)
// and along the pad normal, the device rendering zero force, and returns
// the largest true residual pulp force.
func runTransparency(cfg Config, p devsim.ExoParams, v float64) (TransparencyResult, error) {
	f := sim.Index
	res := TransparencyResult{SpeedMps: v, PeakAccel: transparencyAccel, StrokeM: 0.08}
	dirs := [][3]float64{{1, 0, 0}, pressDir(f)}
	var sum2 float64
	var n int
	for _, dir := range dirs {
		home := homePad(p, f)
		pi, kind := strokeProfile(home, dir, v, res.StrokeM, transparencyAccel, 2, 600*time.Millisecond)
		r, err := newSimRig(cfg, p, [sim.NumFingers]devsim.Intent{nil, pi})
		if err != nil {
			return res, err
		}
		for k := range kind {
			r.tick()
			if r.t < 400*time.Millisecond {
				continue
			}
			if st := r.servo.Status(f).State; st != StateActive {
				return res, fmt.Errorf("haptics: transparency at %g m/s: finger %v (%v) at %v", v, st, r.servo.Status(f).Reason, r.t)
			}
			fm := exo.Norm(r.exos[f].Truth().Force)
			if kind[k] != segRest || k > 600 {
				res.AllMaxN = math.Max(res.AllMaxN, fm)
			}
			if kind[k] == segConst {
				res.ConstMaxN = math.Max(res.ConstMaxN, fm)
				sum2 += fm * fm
				n++
			}
		}
		res.Directions++
	}
	res.ConstRMSN = math.Sqrt(sum2 / float64(n))
	return res, nil
}

// SweepPoint is the force loop's open-loop gain at one frequency.
type SweepPoint struct {
	Hz       float64
	GainDB   float64
	PhaseDeg float64
}

// SweepResult is the force loop's frequency response, measured by
// injecting a sine into the force error of the index finger pressing with
// 1 N and comparing what comes back around the loop.
type SweepResult struct {
	Points         []SweepPoint
	CrossoverHz    float64
	PhaseMarginDeg float64
	GainMarginDB   float64
}

// runSweep measures the loop gain L(jω) = -E/U along the pad normal, with
// U = E + D the force error with the injected sine D, at log-spaced
// frequencies, and finds the crossover and the phase margin.
func runSweep(cfg Config, p devsim.ExoParams, freqs []float64, amp float64) (SweepResult, error) {
	f := sim.Index
	home := homePad(p, f)
	dir := exo.Scale(-1, pressDir(f))
	var res SweepResult
	for _, hz := range freqs {
		r, err := newSimRig(cfg, p, [sim.NumFingers]devsim.Intent{nil, holdIntent{home}})
		if err != nil {
			return res, err
		}
		forceModel(&r.in.Local[f], dir, 1)
		if err := r.waitActive(time.Second); err != nil {
			return res, err
		}
		for end := r.t + 300*time.Millisecond; r.t < end; {
			r.tick()
		}
		ctl := r.servo.fingers[f].ctl
		dirB := r.servo.fingers[f].base.InvVec(dir)
		periods := math.Max(8, math.Ceil(hz*0.5))
		settle := math.Max(2, math.Ceil(hz*0.2))
		nTicks := int(math.Round((periods + settle) / hz * 1000))
		skip := int(math.Round(settle / hz * 1000))
		var eAcc, uAcc complex128
		t0 := r.t
		for k := 0; k < nTicks; k++ {
			ph := 2 * math.Pi * hz * (r.t - t0).Seconds()
			d := amp * math.Sin(ph)
			ctl.inject = exo.Scale(d, dirB)
			r.tick()
			if k < skip {
				continue
			}
			e := exo.Dot(ctl.lastErr, dirB)
			w := cmplx.Exp(complex(0, -ph))
			eAcc += complex(e, 0) * w
			uAcc += complex(e+d, 0) * w
		}
		// Use whole periods only: trim is implicit in the long window.
		l := -eAcc / uAcc
		res.Points = append(res.Points, SweepPoint{Hz: hz, GainDB: 20 * math.Log10(cmplx.Abs(l)), PhaseDeg: cmplx.Phase(l) * 180 / math.Pi})
	}
	res.CrossoverHz, res.PhaseMarginDeg = math.NaN(), math.NaN()
	res.GainMarginDB = math.NaN()
	for i := 1; i < len(res.Points); i++ {
		a, b := res.Points[i-1], res.Points[i]
		if math.IsNaN(res.CrossoverHz) && a.GainDB >= 0 && b.GainDB < 0 {
			x := a.GainDB / (a.GainDB - b.GainDB)
			res.CrossoverHz = math.Exp(math.Log(a.Hz) + x*(math.Log(b.Hz)-math.Log(a.Hz)))
			pa, pb := unwrapTo(a.PhaseDeg, -180), unwrapTo(b.PhaseDeg, -180)
			res.PhaseMarginDeg = 180 + pa + x*(pb-pa)
		}
		pa, pb := unwrapTo(a.PhaseDeg, -180), unwrapTo(b.PhaseDeg, -180)
		if math.IsNaN(res.GainMarginDB) && pa > -180 && pb <= -180 {
			x := (pa + 180) / (pa - pb)
			res.GainMarginDB = -(a.GainDB + x*(b.GainDB-a.GainDB))
		}
	}
	return res, nil
}

// unwrapTo returns phase [deg] shifted by whole turns into (ref-360, ref+... ] so
// that lagging phases read below 0 down to -360.
func unwrapTo(deg, _ float64) float64 {
	for deg > 0 {
		deg -= 360
	}
	for deg <= -360 {
		deg += 360
	}
	return deg
}
