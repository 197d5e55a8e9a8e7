// Package renderbench measures the view's drawing speed: frames package
// render draws offscreen, timed on its GL thread, and the process's CPU
// time per frame. `haptex bench render` prints its Result.
package renderbench

import (
	"errors"
	"runtime"
	"time"

	"github.com/haptex/haptex/internal/latency"
	"github.com/haptex/haptex/render"
)

// Result is the view's drawing speed, as `haptex bench render -json`
// prints it: frames drawn offscreen at the Config's size, each one complete
// (the GL finished), without reading the image back.
type Result struct {
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
	FPS     float64             `json:"fps"`
	FrameMs latency.Percentiles `json:"frame_ms"`
	// CPUMsPerFrame is the process's CPU time per frame, a software GL's
	// threads included (0 where not measured): on a shared machine a
	// steadier measure of the work than the wall clock.
	CPUMsPerFrame float64 `json:"cpu_ms_per_frame"`
}

// Bench draws f, seen by cfg.Camera, frames times offscreen after a short
// warm-up, and reports the frame rate. Use cfg.NormalPriority to measure
// what the renderer can do rather than what it takes when it yields. It
// runs GL on a Thread of its own, so nothing else in the process may hold
// a Window or an Offscreen meanwhile.
func Bench(cfg render.Config, f *render.Frame, frames int) (Result, error) {
	if frames <= 0 {
		return Result{}, errors.New("renderbench: needs at least one frame")
	}
	th := render.StartThread()
	defer th.Stop()
	o, err := render.NewOffscreen(th, cfg)
	if err != nil {
		return Result{}, err
	}
	defer o.Close()
	oc := o.Config()
	for i := 0; i < 5; i++ { // shader compilation, first upload
		if _, err := o.Draw(f, oc.Camera); err != nil {
			return Result{}, err
		}
	}
	ms := make([]float64, frames)
	cpu0, cpuOK := latency.ProcessCPU()
	start := time.Now()
	for i := range ms {
		d, err := o.Draw(f, oc.Camera)
		if err != nil {
			return Result{}, err
		}
		ms[i] = float64(d) / float64(time.Millisecond)
	}
	wall := time.Since(start)
	cpu1, _ := latency.ProcessCPU()
	r := Result{
		Bench: "render", Go: runtime.Version(), CPUs: runtime.NumCPU(), Renderer: o.Renderer(),
		Width: oc.Width, Height: oc.Height, Samples: oc.Samples, Frames: frames,
		FPS: float64(frames) / wall.Seconds(), FrameMs: latency.Of(ms),
	}
	if f.Topology != nil {
		r.Nodes = f.Topology.Nodes
	}
	if cpuOK {
		r.CPUMsPerFrame = float64(cpu1-cpu0) / float64(time.Millisecond) / float64(frames)
	}
	return r, nil
}
