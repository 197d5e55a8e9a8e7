// Package servobench is the force-feedback servo's test lab: it runs
// package haptics' Servo against the simulated exoskeletons and fingers of
// devices/twin in virtual time, and measures the servo's tick and the
// closed loop (force step, transparency, loop gain and margins, a steady
// pinch), and analyses its filters at the loop's crossover. `haptex bench
// control` prints its Result.
//
// It measures the servo through its exported API and changes nothing in
// it; the servo never depends on it.
package servobench

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/internal/latency"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// Result is what `haptex bench control -json` prints. Timings are
// wall-clock on this machine; every closed-loop figure is measured in
// virtual time on the default simulated exoskeleton and finger
// (devices/twin exo.toml) with the default servo configuration.
type Result struct {
	Bench string `json:"bench"`
	Go    string `json:"go"`
	CPUs  int    `json:"cpus"`

	Ticks         int                 `json:"ticks"`
	TickUs        latency.Percentiles `json:"tick_us"` // one Tick, both fingers
	AllocsPerTick float64             `json:"allocs_per_tick"`

	TransparencyMaxN    float64 `json:"transparency_max_n"`     // constant-speed phases, worst of 50/100/200 mm/s
	TransparencyAllMaxN float64 `json:"transparency_all_max_n"` // starts, stops and reversals included
	StepRiseMs          float64 `json:"step_rise_ms"`
	StepOvershootPct    float64 `json:"step_overshoot_pct"`
	SteadyErrorPct      float64 `json:"steady_error_pct"`
	PhaseMarginDeg      float64 `json:"phase_margin_deg"`
	CrossoverHz         float64 `json:"crossover_hz"`
	GainMarginDB        float64 `json:"gain_margin_db"`
	PinchHFRMSMm        float64 `json:"pinch_hf_rms_mm"`    // device position above 20 Hz in a 10 s pinch, worst finger
	PinchMinEnergyJ     float64 `json:"pinch_min_energy_j"` // lowest passivity-observer energy in the pinch
	PassivityBoundJ     float64 `json:"passivity_bound_j"`

	// Sweeps are the force loop's margins at each sweep amplitude.
	Sweeps []SweepSummary `json:"sweeps"`
	// RenderedStiffness is the stiffness felt against the stiffness asked.
	RenderedStiffness []StiffnessPoint `json:"rendered_stiffness"`
	ZWidth            ZWidthResult     `json:"zwidth"`
	// ContactResponse is the force loop's frequency response in contact:
	// the finger held still against walls of 300 and 1,000 N/m whose
	// force varies by 20 mN at 1-16 Hz.
	ContactResponse []ResponsePoint `json:"contact_response"`
	// ContactTracking is measured on the showcase in lockstep by the
	// application layer (haptex bench control), not by this package.
	ContactTracking *haptics.TrackingResult `json:"contact_tracking,omitempty"`

	Transparency []TransparencyResult `json:"transparency"`
	Step         StepResult           `json:"step"`
	Sweep        SweepResult          `json:"sweep"`
	Pinch        PinchResult          `json:"pinch"`
	Plant        twin.TipFigures      `json:"plant_home"` // the simulated device at its home posture
	// Filters are the servo's filters analysed, at the crossover of
	// the force loop's sweep.
	Filters []FilterFigures `json:"filters"`
}

// Options sizes the benchmark.
type Options struct {
	Ticks      int             // timed ticks (default 20000)
	PinchTime  time.Duration   // default 10 s
	SkipClosed bool            // timing only
	SweepHz    []float64       // default 2..56 Hz, log-spaced
	SweepAmpN  float64         // amplitude of the sweep reported in Sweep; default 0.1 N
	SweepAmps  []float64       // amplitudes of the margins in Sweeps; default 0.1, 0.3 and 1 N
	StiffnessK []float64       // springs of the rendered-stiffness bench; default 100, 300, 1000 and 3000 N/m (a cloth local model follows them)
	ZWidthB    []float64       // wall dampings of the Z-width bench; default 0, 2, 5, 10, 15 and 20 N·s/m
	Config     *haptics.Config // default haptics.DefaultConfig()
	Plant      *twin.ExoParams
}

// SweepSummary is the force loop's margins at one sweep amplitude.
type SweepSummary struct {
	AmplitudeN     float64 `json:"amplitude_n"`
	PhaseMarginDeg float64 `json:"phase_margin_deg"`
	GainMarginDB   float64 `json:"gain_margin_db"`
	CrossoverHz    float64 `json:"crossover_hz"`
	// SaturatedShare is the share of the sweep's measured ticks in which
	// the force bound held the index finger's motors: the loop gain then
	// reads low and the gain margin high.
	SaturatedShare float64 `json:"saturated_share"`
	// DampedTicks counts the ticks in which the passivity controller
	// acted: margins measured while it acts are not the loop's.
	DampedTicks int `json:"damped_ticks"`
}

// TransparencySpeeds are the finger speeds of the transparency runs [m/s].
var TransparencySpeeds = []float64{0.05, 0.1, 0.2}

// Bench times the servo and measures the closed-loop figures.
func Bench(opt Options) (Result, error) {
	cfg := haptics.DefaultConfig()
	if opt.Config != nil {
		cfg = *opt.Config
	}
	p := twin.DefaultExoParams()
	if opt.Plant != nil {
		p = *opt.Plant
	}
	if opt.Ticks <= 0 {
		opt.Ticks = 20000
	}
	if opt.PinchTime <= 0 {
		opt.PinchTime = 10 * time.Second
	}
	if len(opt.SweepHz) == 0 {
		opt.SweepHz = []float64{2, 3, 5, 7, 10, 14, 20, 28, 40, 56}
	}
	if opt.SweepAmpN <= 0 {
		opt.SweepAmpN = 0.1
	}
	if len(opt.SweepAmps) == 0 {
		opt.SweepAmps = []float64{0.1, 0.3, 1}
	}
	if len(opt.StiffnessK) == 0 {
		opt.StiffnessK = []float64{100, 300, 1000, 3000}
	}
	if len(opt.ZWidthB) == 0 {
		opt.ZWidthB = []float64{0, 2, 5, 10, 15, 20}
	}
	res := Result{Bench: "control", Go: runtime.Version(), CPUs: runtime.NumCPU(), PassivityBoundJ: cfg.Passivity.Bound}
	if err := benchTick(&res, cfg, p, opt.Ticks); err != nil {
		return res, err
	}
	if opt.SkipClosed {
		var err error
		res.Filters, err = filterFigures(cfg, 0)
		return res, err
	}
	for _, v := range TransparencySpeeds {
		tr, err := runTransparency(cfg, p, v)
		if err != nil {
			return res, err
		}
		res.Transparency = append(res.Transparency, tr)
		res.TransparencyMaxN = math.Max(res.TransparencyMaxN, tr.ConstMaxN)
		res.TransparencyAllMaxN = math.Max(res.TransparencyAllMaxN, tr.AllMaxN)
	}
	st, err := runStep(cfg, p, 1)
	if err != nil {
		return res, err
	}
	res.Step = st
	res.StepRiseMs, res.StepOvershootPct, res.SteadyErrorPct = st.RiseMs, st.OvershootPct, st.SteadyErrPct
	sw, err := runSweep(cfg, p, opt.SweepHz, opt.SweepAmpN)
	if err != nil {
		return res, err
	}
	res.Sweep = sw
	res.PhaseMarginDeg, res.CrossoverHz, res.GainMarginDB = sw.PhaseMarginDeg, sw.CrossoverHz, sw.GainMarginDB
	for _, a := range opt.SweepAmps {
		sw := res.Sweep
		if a != opt.SweepAmpN {
			if sw, err = runSweep(cfg, p, opt.SweepHz, a); err != nil {
				return res, err
			}
		}
		res.Sweeps = append(res.Sweeps, SweepSummary{AmplitudeN: a, PhaseMarginDeg: sw.PhaseMarginDeg, GainMarginDB: sw.GainMarginDB, CrossoverHz: sw.CrossoverHz, SaturatedShare: sw.SaturatedShare, DampedTicks: sw.DampedTicks})
	}
	n := vec3.Scale(-1, pressDir(sim.IndexFinger))
	for _, k := range opt.StiffnessK {
		sp, err := runStiffness(cfg, p, "spring", springMatrix(k, n))
		if err != nil {
			return res, err
		}
		res.RenderedStiffness = append(res.RenderedStiffness, sp)
	}
	km, err := clothPinchStiffness(clothPinchSide)
	if err != nil {
		return res, err
	}
	sp, err := runStiffness(cfg, p, "cloth local model", km)
	if err != nil {
		return res, err
	}
	res.RenderedStiffness = append(res.RenderedStiffness, sp)
	if res.ZWidth, err = runZWidth(cfg, p, opt.ZWidthB); err != nil {
		return res, err
	}
	if res.ContactResponse, err = runContactResponse(cfg, p, []float64{300, 1000}, []float64{1, 2, 4, 8, 16}); err != nil {
		return res, err
	}
	pr, err := runPinch(cfg, p, opt.PinchTime)
	if err != nil {
		return res, err
	}
	res.Pinch = pr
	res.PinchMinEnergyJ = math.Inf(1)
	for f := range sim.NumFingers {
		res.PinchHFRMSMm = math.Max(res.PinchHFRMSMm, pr.HFRMSMm[f])
		res.PinchMinEnergyJ = math.Min(res.PinchMinEnergyJ, pr.MinEnergyJ[f])
	}
	e, err := twin.NewExo(p, twin.DefaultBase(sim.IndexFinger), holdIntent{homePad(p, sim.IndexFinger)}, sim.IndexFinger)
	if err != nil {
		return res, err
	}
	res.Plant = e.TipFigures()
	res.Filters, err = filterFigures(cfg, res.CrossoverHz)
	return res, err
}

// benchTick times Tick with both fingers pressing 1 N on simulated
// devices. The plants advance outside the timed region (their clocks are
// hidden from the servo), so the figures are the servo's own cost.
func benchTick(res *Result, cfg haptics.Config, p twin.ExoParams, n int) error {
	var exos [sim.NumFingers]*twin.Exo
	var fingers [sim.NumFingers]haptics.Finger
	for f := range sim.NumFingers {
		e, err := twin.NewExo(p, twin.DefaultBase(f), holdIntent{homePad(p, f)}, f)
		if err != nil {
			return err
		}
		exos[f] = e
		fingers[f] = haptics.Finger{Device: unclocked{e}, Kin: e.Kinematics(), Base: e.Base()}
	}
	s, err := haptics.NewServo(cfg, fingers)
	if err != nil {
		return err
	}
	var in sim.Output
	for f := range sim.NumFingers {
		forceModel(&in.Local[f], [3]float64{0, 0, 0}, 1)
	}
	var out sim.FingerState
	var rec haptics.TickRecord
	period := s.Period()
	t := time.Duration(0)
	step := func() {
		for _, e := range exos {
			e.Advance(t)
		}
	}
	for t < 300*time.Millisecond {
		step()
		s.Tick(t, &in, &out, &rec)
		t += period
	}
	for f := range sim.NumFingers {
		if st := s.Status(f); st.State != haptics.StateActive {
			return fmt.Errorf("servobench: %s not active: %v %v", sim.FingerName(f), st.State, st.Reason)
		}
		forceModel(&in.Local[f], pressForce(f, 1), 2)
	}
	us := make([]float64, 0, n)
	for range n {
		step()
		t0 := time.Now()
		s.Tick(t, &in, &out, &rec)
		us = append(us, float64(time.Since(t0).Nanoseconds())/1e3)
		t += period
	}
	// Allocations are counted process-wide, so count them on one P, as
	// testing.AllocsPerRun does (the plants' Advance allocates nothing).
	const m = 2000
	prev := runtime.GOMAXPROCS(1)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	for range m {
		step()
		s.Tick(t, &in, &out, &rec)
		t += period
	}
	runtime.ReadMemStats(&ms1)
	runtime.GOMAXPROCS(prev)
	res.AllocsPerTick = float64(ms1.Mallocs-ms0.Mallocs) / m
	for f := range sim.NumFingers {
		if st := s.Status(f); st.State != haptics.StateActive {
			return fmt.Errorf("servobench: %s left the active state: %v %v", sim.FingerName(f), st.State, st.Reason)
		}
	}
	res.Ticks = n
	res.TickUs = latency.Of(us)
	return nil
}

// pressForce is a force of f newtons against finger f's pad.
func pressForce(finger int, f float64) [3]float64 {
	d := pressDir(finger)
	return [3]float64{-f * d[0], -f * d[1], -f * d[2]}
}

// unclocked hides a simulated device's clock from the servo, so that
// benchmarks advance the plant outside the timed region.
type unclocked struct{ e *twin.Exo }

var _ devices.Exoskeleton = unclocked{}

func (u unclocked) Spec() devices.ExoSpec               { return u.e.Spec() }
func (u unclocked) Read(dst *devices.ExoState) error    { return u.e.Read(dst) }
func (u unclocked) Write(cmd *devices.ExoCommand) error { return u.e.Write(cmd) }
func (u unclocked) Enable(on bool) error                { return u.e.Enable(on) }
func (u unclocked) Close() error                        { return u.e.Close() }
