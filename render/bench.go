package render

import (
	"errors"
	"runtime"
	"slices"
	"time"
)

// BenchResult is the view's drawing speed, as `haptex bench render -json`
// prints it: frames drawn offscreen at the Config's size, each one complete
// (the GL finished), without reading the image back.
type BenchResult struct {
	Bench    string `json:"bench"` // "render"
	Go       string `json:"go"`
	CPUs     int    `json:"cpus"`
	Renderer string `json:"renderer"` // GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Samples  int    `json:"samples"`
	Nodes    int    `json:"nodes"` // cloth nodes in the frame
	Frames   int    `json:"frames"`
	// FPS is frames over the wall-clock time they took.
	FPS     float64     `json:"fps"`
	FrameMs Percentiles `json:"frame_ms"`
	// CPUMsPerFrame is the process's CPU time per frame, a software GL's
	// threads included (0 where not measured): on a shared machine a
	// steadier measure of the work than the wall clock.
	CPUMsPerFrame float64 `json:"cpu_ms_per_frame"`
}

// Percentiles of a sample, in the unit its field name ends with.
type Percentiles struct {
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// Bench draws f, seen by cfg.Camera, frames times offscreen after a short
// warm-up, and reports the frame rate. Use cfg.NormalPriority to measure
// what the renderer can do rather than what it takes when it yields.
func Bench(cfg Config, f *Frame, frames int) (BenchResult, error) {
	if frames <= 0 {
		return BenchResult{}, errors.New("render: bench needs at least one frame")
	}
	th, release, err := acquireGLFWShared()
	if err != nil {
		return BenchResult{}, err
	}
	defer release()
	o, err := NewOffscreen(th, cfg)
	if err != nil {
		return BenchResult{}, err
	}
	defer o.Close()
	cam := o.cfg.Camera
	var d time.Duration
	req := newRequest(func() {
		t0 := time.Now()
		o.drawOnly(f, cam)
		d = time.Since(t0)
	})
	for i := 0; i < 5; i++ { // shader compilation, first upload
		if err := th.call(req); err != nil {
			return BenchResult{}, err
		}
	}
	ms := make([]float64, frames)
	cpu0, cpuOK := processCPU()
	start := time.Now()
	for i := range ms {
		if err := th.call(req); err != nil {
			return BenchResult{}, err
		}
		ms[i] = float64(d) / float64(time.Millisecond)
	}
	wall := time.Since(start)
	cpu1, _ := processCPU()
	r := BenchResult{
		Bench: "render", Go: runtime.Version(), CPUs: runtime.NumCPU(), Renderer: o.renderer,
		Width: o.cfg.Width, Height: o.cfg.Height, Samples: o.cfg.Samples, Frames: frames,
		FPS: float64(frames) / wall.Seconds(), FrameMs: percentiles(ms),
	}
	if f.Topology != nil {
		r.Nodes = f.Topology.Nodes
	}
	if cpuOK {
		r.CPUMsPerFrame = float64(cpu1-cpu0) / float64(time.Millisecond) / float64(frames)
	}
	return r, nil
}

// percentiles by nearest rank; x is sorted in place.
func percentiles(x []float64) Percentiles {
	slices.Sort(x)
	at := func(p float64) float64 {
		i := int(p*float64(len(x))+0.5) - 1
		return x[max(0, min(len(x)-1, i))]
	}
	return Percentiles{P50: at(0.50), P99: at(0.99), P999: at(0.999), Max: x[len(x)-1]}
}
