package servobench

import (
	"fmt"
	"math"
	"math/cmplx"
	"time"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// StepResult is the response of the true fingertip force to a step of the
// desired force, the finger holding still.
type StepResult struct {
	StepN        float64 `json:"step_n"`           // step size [N]
	RiseMs       float64 `json:"rise_ms"`          // 10 % to 90 % of the final value [ms]
	OvershootPct float64 `json:"overshoot_pct"`    // peak above the final value [% of the step]
	SteadyErrPct float64 `json:"steady_error_pct"` // |final - step| [% of the step], final = mean over the last 100 ms
	SettleMs     float64 `json:"settle_ms"`        // last time outside ±5 % of the step [ms after the step]
}

// runStep applies a step of stepN newtons against the index pad (the force
// a touched surface would exert) 0.3 s after the finger became active,
// and measures the true pulp force for 0.5 s.
func runStep(cfg haptics.Config, p twin.ExoParams, stepN float64) (StepResult, error) {
	cfg.Model.SlewNPerS = 0 // a step, not a blended sim update
	f := sim.IndexFinger
	home := homePad(p, f)
	r, err := newSimRig(cfg, p, [sim.NumFingers]twin.Intent{nil, holdIntent{home}})
	if err != nil {
		return StepResult{}, err
	}
	if err := r.waitActive(time.Second); err != nil {
		return StepResult{}, err
	}
	dir := vec3.Scale(-1, pressDir(f))
	for end := r.t + 300*time.Millisecond; r.t < end; {
		r.tick()
	}
	forceModel(&r.in.Local[f], vec3.Scale(stepN, dir), 1)
	t0 := r.t
	var ts, fs []float64
	for r.t < t0+500*time.Millisecond {
		r.tick()
		tr := r.exos[f].Truth()
		ts = append(ts, (tr.T-t0).Seconds()*1e3)
		fs = append(fs, vec3.Dot(tr.Force, dir))
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
	SpeedMps   float64 `json:"speed_mps"`
	ConstMaxN  float64 `json:"const_max_n"`     // max |F| during the constant-speed phases [N]
	AllMaxN    float64 `json:"all_max_n"`       // max |F| over the motion, starts, stops and reversals included [N]
	ConstRMSN  float64 `json:"const_rms_n"`     // RMS |F| during the constant-speed phases [N]
	PeakAccel  float64 `json:"peak_accel_mps2"` // peak acceleration of the intent [m/s²]
	StrokeM    float64 `json:"stroke_m"`
	Directions int     `json:"directions"`
}

// transparencyAccel is the peak acceleration of starts, stops and
// reversals in the transparency runs: a brisk stroke of a finger.
const transparencyAccel = 1.0

// runTransparency strokes the index finger back and forth (two strokes
// each way) at speed v along world x (the stroke direction of the scene)
// and along the pad normal, the device rendering zero force, and returns
// the largest true residual pulp force.
func runTransparency(cfg haptics.Config, p twin.ExoParams, v float64) (TransparencyResult, error) {
	f := sim.IndexFinger
	res := TransparencyResult{SpeedMps: v, PeakAccel: transparencyAccel, StrokeM: 0.08}
	dirs := [][3]float64{{1, 0, 0}, pressDir(f)}
	var sum2 float64
	var n int
	for _, dir := range dirs {
		home := homePad(p, f)
		pi, kind := strokeProfile(home, dir, v, res.StrokeM, transparencyAccel, 2, 600*time.Millisecond)
		r, err := newSimRig(cfg, p, [sim.NumFingers]twin.Intent{nil, pi})
		if err != nil {
			return res, err
		}
		for k := range kind {
			r.tick()
			if r.t < 400*time.Millisecond {
				continue
			}
			if st := r.servo.Status(f).State; st != haptics.StateActive {
				return res, fmt.Errorf("servobench: transparency at %g m/s: finger %v (%v) at %v", v, st, r.servo.Status(f).Reason, r.t)
			}
			fm := vec3.Norm(r.exos[f].Truth().Force)
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
	Hz       float64 `json:"hz"`
	GainDB   float64 `json:"gain_db"`
	PhaseDeg float64 `json:"phase_deg"`
	// SaturatedShare is the share of the point's measured ticks in which
	// the force bound held the motors (Servo.Saturated).
	SaturatedShare float64 `json:"saturated_share"`
}

// SweepResult is the force loop's frequency response, measured by
// injecting a sine into the force error of the index finger pressing with
// 1 N and comparing what comes back around the loop.
type SweepResult struct {
	Points         []SweepPoint `json:"points"`
	CrossoverHz    float64      `json:"crossover_hz"`
	PhaseMarginDeg float64      `json:"phase_margin_deg"`
	GainMarginDB   float64      `json:"gain_margin_db"`
	Crossed        bool         `json:"crossed"`         // the gain crossed 0 dB inside the sweep (else crossover and margin are 0)
	PhaseCrossed   bool         `json:"phase_crossed"`   // the phase crossed -180° inside the sweep (else the gain margin is 0)
	SaturatedShare float64      `json:"saturated_share"` // over every point's measured ticks
	DampedTicks    int          `json:"damped_ticks"`    // ticks, settling included, in which the passivity controller acted
}

// runSweep measures the loop gain L(jω) = -E/U along the pad normal, with
// U = E + D the force error with the injected sine D, at log-spaced
// frequencies, and finds the crossover and the phase margin.
func runSweep(cfg haptics.Config, p twin.ExoParams, freqs []float64, amp float64) (SweepResult, error) {
	f := sim.IndexFinger
	home := homePad(p, f)
	dir := vec3.Scale(-1, pressDir(f))
	var res SweepResult
	var measured, saturated uint64
	for _, hz := range freqs {
		r, err := newSimRig(cfg, p, [sim.NumFingers]twin.Intent{nil, holdIntent{home}})
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
		base := r.exos[f].Base() // the servo's frame for the finger's force error
		dirB := base.InvVec(dir)
		nTicks, skip := sweepTicks(hz)
		var eAcc, uAcc complex128
		t0 := r.t
		var sat0 uint64
		for k := 0; k < nTicks; k++ {
			if k == skip {
				sat0 = r.servo.Saturated(f)
			}
			ph := 2 * math.Pi * hz * (r.t - t0).Seconds()
			d := amp * math.Sin(ph)
			r.servo.InjectForceError(f, vec3.Scale(d, dirB))
			r.tick()
			if r.rec.Fingers[f].Damping > 0 {
				res.DampedTicks++
			}
			if k < skip {
				continue
			}
			e := vec3.Dot(r.servo.ForceError(f), dirB)
			w := cmplx.Exp(complex(0, -ph))
			eAcc += complex(e, 0) * w
			uAcc += complex(e+d, 0) * w
		}
		l := -eAcc / uAcc
		sat := r.servo.Saturated(f) - sat0
		res.Points = append(res.Points, SweepPoint{Hz: hz, GainDB: 20 * math.Log10(cmplx.Abs(l)), PhaseDeg: cmplx.Phase(l) * 180 / math.Pi,
			SaturatedShare: float64(sat) / float64(nTicks-skip)})
		measured += uint64(nTicks - skip)
		saturated += sat
	}
	res.SaturatedShare = float64(saturated) / float64(measured)
	for i := 1; i < len(res.Points); i++ {
		a, b := res.Points[i-1], res.Points[i]
		if !res.Crossed && a.GainDB >= 0 && b.GainDB < 0 {
			res.Crossed = true
			x := a.GainDB / (a.GainDB - b.GainDB)
			res.CrossoverHz = math.Exp(math.Log(a.Hz) + x*(math.Log(b.Hz)-math.Log(a.Hz)))
			pa, pb := lag(a.PhaseDeg), lag(b.PhaseDeg)
			res.PhaseMarginDeg = 180 + pa + x*(pb-pa)
		}
		pa, pb := lag(a.PhaseDeg), lag(b.PhaseDeg)
		if !res.PhaseCrossed && pa > -180 && pb <= -180 {
			res.PhaseCrossed = true
			x := (pa + 180) / (pa - pb)
			res.GainMarginDB = -(a.GainDB + x*(b.GainDB-a.GainDB))
		}
	}
	return res, nil
}

// sweepTicks returns how many 1 ms ticks runSweep plays at hz, and how
// many of the first it skips while the loop settles: at least 8 periods
// (half a second) measured after at least 2 (0.2 s).
func sweepTicks(hz float64) (n, skip int) {
	periods := math.Max(8, math.Ceil(hz*0.5))
	settle := math.Max(2, math.Ceil(hz*0.2))
	return int(math.Round((periods + settle) / hz * 1000)), int(math.Round(settle / hz * 1000))
}

// lag returns a phase [deg] shifted by whole turns into (-360, 0], the
// range of a lagging loop's phase.
func lag(deg float64) float64 {
	for deg > 0 {
		deg -= 360
	}
	for deg <= -360 {
		deg += 360
	}
	return deg
}

// PinchResult is a steady two-finger pinch of a cloth-like contact.
type PinchResult struct {
	DurationS  float64                 `json:"duration_s"`
	HFRMSMm    [sim.NumFingers]float64 `json:"hf_rms_mm"`        // true pad position above 20 Hz, RMS [mm]
	MinEnergyJ [sim.NumFingers]float64 `json:"min_energy_j"`     // lowest passivity-observer energy [J]
	BoundJ     float64                 `json:"bound_j"`          // the observer's bound [J]
	MeanForceN [sim.NumFingers]float64 `json:"mean_force_n"`     // mean normal force on the finger [N]
	StiffNpm   [sim.NumFingers]float64 `json:"stiffness_npm"`    // mean stiffness of the local models [N/m]
	MaxDamping [sim.NumFingers]float64 `json:"max_damping_nspm"` // largest injected damping [N·s/m]
	DriftJ     [sim.NumFingers]float64 `json:"energy_drift_j"`   // observer energy change over the hold [J]; < 0 would mean the loop feeds energy
	Trips      int                     `json:"trips"`
}

// clothContact is a stiff nonlinear spring standing in for a pinched
// fabric layer: against the pad centre's penetration δ past the surface it
// pushes back with k1 δ + k3 δ³, and it resists sliding with kt. Like the
// simulation it is linearised every simStep at the finger position the
// servo last published, and the model reaches the servo one step later.
type clothContact struct {
	surface [sim.NumFingers]float64 // pad-centre z of first contact per finger [m]
	side    [sim.NumFingers]float64 // +1: the finger is on the +z side
	k1, k3  float64
	kt      float64
	simStep time.Duration
	pending sim.Output
	nextT   time.Duration
	step    uint64
	started bool
}

// update publishes the pending models when their step is due and
// linearises new ones at the latest finger positions.
func (c *clothContact) update(t time.Duration, fs *sim.FingerState, out *sim.Output) {
	if c.started && t < c.nextT {
		return
	}
	if c.started {
		*out = c.pending
	}
	c.started = true
	c.nextT = t + c.simStep
	c.step++
	c.pending.T, c.pending.Step = t, c.step
	for f := range sim.NumFingers {
		m := &c.pending.Local[f]
		x := fs.Fingers[f].Pos
		d := c.side[f] * (c.surface[f] - x[2]) // penetration
		*m = sim.LocalModel{T: t, Step: c.step, X0: x, Valid: true}
		if d <= 0 || !fs.Fingers[f].Valid {
			continue
		}
		fn := c.k1*d + c.k3*d*d*d
		kn := c.k1 + 3*c.k3*d*d
		m.InContact = true
		m.Depth = 1                             // the staircase renders the spring; the region is not at stake here
		m.Normal = [3]float64{0, 0, -c.side[f]} // the pressing direction: into the fabric
		m.F0 = [3]float64{0, 0, c.side[f] * fn}
		m.K = [3][3]float64{{-c.kt, 0, 0}, {0, -c.kt, 0}, {0, 0, -kn}}
	}
}

// runPinch closes thumb and index on a fabric layer between their home
// positions and holds the pinch for dur, the intents 8 mm past the
// fabric's surfaces.
func runPinch(cfg haptics.Config, p twin.ExoParams, dur time.Duration) (PinchResult, error) {
	const surf = 0.008 + 0.00025 // pad radius plus half the fabric thickness
	res := PinchResult{DurationS: dur.Seconds(), BoundJ: cfg.Passivity.Bound}
	var intents [sim.NumFingers]twin.Intent
	cc := &clothContact{k1: 800, k3: 1e8, kt: 300, simStep: 5 * time.Millisecond}
	for f := range sim.NumFingers {
		h := homePad(p, f)
		side := math.Copysign(1, h[2])
		cc.side[f] = side
		cc.surface[f] = side * surf
		target := [3]float64{h[0], h[1], side * (surf - 0.008)}
		// Close in 0.4 s after 0.3 s at rest (minimum-jerk), then hold.
		pi := &profileIntent{p0: h, dir: vec3.Scale(1/vec3.Norm(vec3.Sub(target, h)), vec3.Sub(target, h)), dt: 100 * time.Microsecond}
		dist := vec3.Norm(vec3.Sub(target, h))
		total := int((dur + time.Second) / pi.dt)
		for i := 0; i < total; i++ {
			ts := (float64(i) * pi.dt.Seconds()) - 0.3
			tau := math.Max(0, math.Min(1, ts/0.4))
			pi.s = append(pi.s, dist*tau*tau*tau*(10+tau*(-15+6*tau)))
			ds := 0.0
			if tau > 0 && tau < 1 {
				ds = dist * 30 * tau * tau * (1 - tau) * (1 - tau) / 0.4
			}
			pi.v = append(pi.v, ds)
		}
		intents[f] = pi
	}
	r, err := newSimRig(cfg, p, intents)
	if err != nil {
		return res, err
	}
	settle := time.Second
	var pos [sim.NumFingers][]float64
	var sumF, sumK [sim.NumFingers]float64
	n := 0
	for f := range sim.NumFingers {
		res.MinEnergyJ[f] = math.Inf(1)
	}
	var e0 [sim.NumFingers]float64
	for r.t < settle+dur {
		cc.update(r.t, &r.out, &r.in)
		r.tick()
		if r.t <= settle {
			for f := range sim.NumFingers {
				e0[f] = r.rec.Fingers[f].Energy
			}
			continue
		}
		n++
		for f := range sim.NumFingers {
			tr := r.exos[f].Truth()
			pos[f] = append(pos[f], tr.Pad[0], tr.Pad[1], tr.Pad[2])
			fr := &r.rec.Fingers[f]
			res.MinEnergyJ[f] = math.Min(res.MinEnergyJ[f], fr.Energy)
			res.MaxDamping[f] = math.Max(res.MaxDamping[f], fr.Damping)
			sumF[f] += math.Abs(tr.Force[2])
			sumK[f] += -r.in.Local[f].K[2][2]
		}
	}
	for f := range sim.NumFingers {
		res.HFRMSMm[f] = 1e3 * highPassRMS(pos[f], 1000, 20)
		res.MeanForceN[f] = sumF[f] / float64(n)
		res.StiffNpm[f] = sumK[f] / float64(n)
		res.Trips += r.servo.Status(f).Trips
		res.DriftJ[f] = r.rec.Fingers[f].Energy - e0[f]
	}
	return res, nil
}

// highPassRMS returns the RMS of the part of a 3-D trajectory (x,y,z
// interleaved, sampled at fs) above fc, from its discrete Fourier
// transform (mean and linear trend removed first).
func highPassRMS(xyz []float64, fs, fc float64) float64 {
	n := len(xyz) / 3
	var total float64
	for k := range 3 {
		x := make([]float64, n)
		for i := range n {
			x[i] = xyz[3*i+k]
		}
		detrend(x)
		coef := fourier.NewFFT(n).Coefficients(nil, x)
		var p float64
		for j, c := range coef {
			if float64(j)*fs/float64(n) < fc {
				continue
			}
			w := 2.0
			if j == 0 || (n%2 == 0 && j == n/2) {
				w = 1
			}
			p += w * (real(c)*real(c) + imag(c)*imag(c))
		}
		total += p / float64(n*n)
	}
	return math.Sqrt(total)
}

func detrend(x []float64) {
	n := float64(len(x))
	var sx, sy, sxx, sxy float64
	for i, v := range x {
		fi := float64(i)
		sx += fi
		sy += v
		sxx += fi * fi
		sxy += fi * v
	}
	b := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	a := (sy - b*sx) / n
	for i := range x {
		x[i] -= a + b*float64(i)
	}
}
