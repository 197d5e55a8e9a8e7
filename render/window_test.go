package render

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// The window opens, draws the frames its source gives it at its own pace,
// publishes the mouse pair, and stops on cancel; with multisampling too
// (drawn offscreen and copied to the window).
func TestWindow(t *testing.T) {
	needDisplay(t)
	for _, samples := range []int{0, 4} {
		t.Run(fmt.Sprintf("samples=%d", samples), func(t *testing.T) {
			testWindow(t, samples)
		})
	}
}

func testWindow(t *testing.T, samples int) {
	w, err := NewWindow(testThread, Config{Width: 640, Height: 360, Title: "haptex test", MaxFPS: 100, Samples: samples})
	if err != nil {
		t.Fatal(err)
	}
	var p Pinch
	if !w.Pinch().Load(&p) || !p.Active || p.Point != DefaultPinch().Point {
		t.Errorf("pinch at open: %+v", p)
	}
	show := showcaseFrame(32)
	// The source cancels the run after its fifth frame, however long the
	// frames take: under make test's load llvmpipe drew a first
	// multisampled frame in over a second. The deadline only ends a run
	// that stalls.
	const frames = 5
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var calls atomic.Int64
	src := func(dst *Frame) {
		n := calls.Add(1)
		if n == 1 {
			*dst = *show
		}
		if n == frames {
			cancel()
		}
		dst.Fingers.T += 10 * time.Millisecond
	}
	start := time.Now()
	err = w.Run(ctx, src)
	elapsed := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run: %v, want the context's error", err)
	}
	n := calls.Load()
	t.Logf("%d frames in %v (%d samples)", n, elapsed, w.cfg.Samples)
	if n != frames {
		t.Errorf("%d frames drawn, want %d", n, frames)
	}
	// The cap holds whatever the machine's speed (with slack for the
	// first frame).
	if limit := 100*elapsed.Seconds() + 2; float64(n) > limit {
		t.Errorf("%d frames in %v: faster than MaxFPS 100", n, elapsed)
	}
	if w.r.cloth.err != "" || !w.r.cloth.shaped {
		t.Errorf("the window did not draw the cloth: %q", w.r.cloth.err)
	}
	// A resized window draws at its new size.
	w.th.Call(func() { w.win.SetSize(800, 400) })
	for i := 0; i < 50 && w.t.width != 800; i++ {
		w.th.call(w.req)
		time.Sleep(10 * time.Millisecond)
	}
	if w.t.width != 800 || w.t.height != 400 || w.ctl.width != 800 {
		t.Errorf("after a resize to 800x400 the window draws %dx%d (controller %dx%d)", w.t.width, w.t.height, w.ctl.width, w.ctl.height)
	}
	// A frame (events, source, draw, swap) allocates nothing.
	if a := testing.AllocsPerRun(5, func() { w.th.call(w.req) }); a != 0 {
		t.Errorf("a window frame allocates %v times", a)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !w.Pinch().Load(&p) || p.Active {
		t.Errorf("pinch after Close: %+v, want inactive", p)
	}
	if err := w.Run(context.Background(), src); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close: %v, want ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// BenchmarkWindow measures the window's own frame rate with the 64 x 64
// showcase at 1280x720 (poll, draw, swap; no cap), under whatever GL the
// display offers.
func BenchmarkWindow(b *testing.B) {
	needDisplay(b)
	w, err := NewWindow(testThread, Config{Width: 1280, Height: 720, MaxFPS: 1e6, NormalPriority: true})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	show := showcaseFrame(64)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	frames := 0
	src := func(dst *Frame) {
		if frames == 0 {
			*dst = *show
		}
		frames++
		if frames > b.N {
			cancel()
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	w.Run(ctx, src)
	wall := time.Since(start)
	b.ReportMetric(float64(b.N)/wall.Seconds(), "frames/s")
	b.ReportMetric((cpuTime()-cpu).Seconds()*1000/float64(b.N), "cpu-ms/frame")
}
