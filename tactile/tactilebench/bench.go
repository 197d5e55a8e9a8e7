// Package tactilebench measures package tactile's frame: the renderer's
// Step for both fingers stroking a twill and the synthesis of the pins'
// waveforms, in wall time and the thread's CPU time, and their heap
// allocations. `haptex bench tactile` prints its Result.
package tactilebench

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/haptex/haptex/internal/latency"
	"github.com/haptex/haptex/tactile"
)

// Result is what `haptex bench tactile -json` prints.
type Result struct {
	Bench   string              `json:"bench"`
	Go      string              `json:"go"`
	CPUs    int                 `json:"cpus"`
	Frames  int                 `json:"frames"`
	Pins    int                 `json:"pins"`
	Surface string              `json:"surface"`
	GridN   int                 `json:"grid_n"`
	FrameUs latency.Percentiles `json:"frame_us"` // Renderer.Step, both fingers, wall time
	// FrameCPUUs is the same frames' CPU time on their thread, which
	// leaves out time the OS gave to other processes (Linux only).
	FrameCPUUs *latency.Percentiles `json:"frame_cpu_us,omitempty"`
	// AllocsPerFrame is heap allocations per Step, counted as
	// testing.AllocsPerRun counts them (whole allocations per frame);
	// AllocsTotal is every allocation the process made during the pass,
	// the runtime's own included.
	AllocsPerFrame float64             `json:"allocs_per_frame"`
	AllocsTotal    uint64              `json:"allocs_total"`
	SynthUs        latency.Percentiles `json:"synth_us"`               // Synth.Render of one 25 ms frame for 48 pins at 8 kHz
	SynthAllocs    float64             `json:"synth_allocs_per_frame"` // as AllocsPerFrame
}

// Bench renders frames frames of both fingers stroking a 2/1 twill
// (speeds sweeping 0-300 mm/s, directions turning, patch moving, contact
// lost and regained) and times each Step and each 25 ms synthesis of the 48
// waveforms; then it renders frames more to count heap allocations. It
// measures wall time on a shared machine: compare figures taken in the
// same run.
func Bench(frames int) (Result, error) {
	if frames < 100 {
		return Result{}, fmt.Errorf("tactilebench: needs >= 100 frames, have %d", frames)
	}
	s, err := tactile.NewSurface(Twill(), 1)
	if err != nil {
		return Result{}, err
	}
	return bench(s, frames)
}

// bench is Bench on surface s.
func bench(s *tactile.Surface, frames int) (Result, error) {
	p := s.Params()
	r, err := tactile.NewRenderer(s, tactile.Config{})
	if err != nil {
		return Result{}, err
	}
	const fs, period = 8000, 0.025
	const fingers, pins = tactile.NumFingers, tactile.Pins
	n := int(fs * period)
	syn, err := tactile.NewSynth(fs, fingers*pins, period, n)
	if err != nil {
		return Result{}, err
	}
	wave := make([]float32, fingers*pins*n)
	a40 := make([]float64, fingers*pins)
	a320 := make([]float64, fingers*pins)

	var in [fingers]tactile.Contact
	var out tactile.Frame
	frame := func(i int) float64 {
		t := float64(i) * period
		stroke(&in, t)
		r.Step(time.Duration(math.Round(t*float64(time.Second))), &in, &out)
		return t
	}
	render := func(t float64) {
		for f := range fingers {
			copy(a40[f*pins:], out.Fingers[f].A40Um[:])
			copy(a320[f*pins:], out.Fingers[f].A320Um[:])
		}
		syn.Render(wave, t, a40, a320)
	}
	const warm = 100
	for i := range warm {
		render(frame(i))
	}

	// Timing pass, on one OS thread so that its CPU clock measures it.
	step := make([]float64, frames)
	cpu := make([]float64, frames)
	synth := make([]float64, frames)
	runtime.LockOSThread()
	_, cpuOK := latency.ThreadCPU()
	for i := range frames {
		c0, _ := latency.ThreadCPU()
		t0 := time.Now()
		t := frame(warm + i)
		t1 := time.Now()
		c1, _ := latency.ThreadCPU()
		render(t)
		t2 := time.Now()
		step[i] = float64(t1.Sub(t0).Nanoseconds()) / 1e3
		cpu[i] = float64(c1-c0) / 1e3
		synth[i] = float64(t2.Sub(t1).Nanoseconds()) / 1e3
	}
	runtime.UnlockOSThread()

	// Allocation pass, counted as testing.AllocsPerRun counts: one
	// processor, heap statistics around the whole pass.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	base := warm + frames
	times := make([]float64, frames)
	var m0, m1, m2 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for i := range frames {
		times[i] = frame(base + i)
	}
	runtime.ReadMemStats(&m1)
	for _, t := range times {
		render(t)
	}
	runtime.ReadMemStats(&m2)

	var frameCPU *latency.Percentiles
	if cpuOK {
		pc := latency.Of(cpu)
		frameCPU = &pc
	}
	return Result{
		FrameCPUUs:     frameCPU,
		Bench:          "tactile",
		Go:             runtime.Version(),
		CPUs:           runtime.NumCPU(),
		Frames:         frames,
		Pins:           fingers * pins,
		Surface:        fmt.Sprintf("%v %d/%d, SMD %.1f µm, yarns %.2f x %.2f mm", p.Weave, p.Float, p.Repeat-p.Float, p.SMD*1e6, p.WarpSpacing*1e3, p.WeftSpacing*1e3),
		GridN:          p.GridN, // the bench's surfaces are KES-built: their grid is GridN
		FrameUs:        latency.Of(step),
		AllocsPerFrame: float64((m1.Mallocs - m0.Mallocs) / uint64(frames)),
		AllocsTotal:    m1.Mallocs - m0.Mallocs,
		SynthUs:        latency.Of(synth),
		SynthAllocs:    float64((m2.Mallocs - m1.Mallocs) / uint64(frames)),
	}, nil
}

// Twill returns the surface the bench renders: a 2/1 twill with
// denim-like spacings and roughness (illustrative values inside the class
// ranges calib/kes validates fabric files against, not a measured fabric).
func Twill() tactile.SurfaceParams {
	return tactile.SurfaceParams{
		SMD: 6e-6, MIU: 0.22, MMD: 0.02,
		Weave: tactile.Twill, Repeat: 3, Float: 2,
		WarpSpacing: 0.3e-3, WeftSpacing: 0.45e-3,
	}
}

// stroke fills in the contacts of a two-finger stroke at time t: speeds
// sweep 0-300 mm/s, directions turn, forces sweep 0.05-0.95 N (patches of
// 4-24 pins), the cloth's curvature and the contact point on the pad
// move, the second finger (the rig's index) lifts off now and then.
func stroke(in *[tactile.NumFingers]tactile.Contact, t float64) {
	for f := range tactile.NumFingers {
		ph := t + float64(f)*0.37
		speed := 0.15 * (1 + math.Sin(2*math.Pi*0.3*ph))
		dir := 2 * math.Pi * 0.05 * ph
		in[f] = tactile.Contact{
			InContact:   f == 0 || math.Mod(t, 7) < 6,
			U:           0.15 + 0.05*math.Sin(0.2*ph),
			V:           0.15 + 0.05*math.Cos(0.17*ph),
			Orientation: 0.3*math.Sin(0.1*ph) + float64(f)*math.Pi,
			SlipU:       speed * math.Cos(dir),
			SlipV:       speed * math.Sin(dir),
			NormalForce: 0.5 + 0.45*math.Sin(ph),
			Curvature:   30 * math.Sin(0.7*ph),
			PadD:        1e-3 * math.Sin(0.9*ph),
			PadL:        0.5e-3 * math.Cos(1.1*ph),
		}
	}
}
