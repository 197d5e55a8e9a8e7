package main

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/render"
	"github.com/haptex/haptex/sim"
)

func init() {
	register(&command{name: "view", summary: "the handling session with a window (the mouse is the finger pair when no device drives it)", run: runView})
	register(&command{name: "snapshot", summary: "render the showcase scene to a PNG without a window", run: runSnapshot})
}

// pinchIntent makes the window's mouse pinch the intended motion of the
// simulated fingers: both pads on either side of the pinch point, closed or
// apart. Before the mouse has done anything the fingers rest away from the
// cloth. At is called from the haptics loop only.
type pinchIntent struct {
	p      *render.AtomicPinch
	radius float64
	cur    render.Pinch
	rest   [sim.NumFingers][3]float64
}

func (pi *pinchIntent) At(_ time.Duration, f int) (pos, vel [3]float64) {
	// p is nil while the rig is built (the simulated exoskeletons take
	// their start pose from the intent) and the window does not exist yet.
	if pi.p == nil || !pi.p.Load(&pi.cur) || !pi.cur.Active {
		return pi.rest[f], vel
	}
	thumb, index := pi.cur.PadCentres(pi.radius)
	if f == sim.Thumb {
		return thumb, vel
	}
	return index, vel
}

// renderConfig is the view's configuration for a rig's scene and fabric.
func renderConfig(v *rig.View) render.Config {
	cfg := render.Config{PadRadius: v.PadRadius()}
	cfg.RodRadius, cfg.RodY = v.Rod()
	f := v.Fabric()
	rgb := func(hex string) color.NRGBA {
		c := kes.RGB(hex)
		return color.NRGBA{R: uint8(c[0]*255 + 0.5), G: uint8(c[1]*255 + 0.5), B: uint8(c[2]*255 + 0.5), A: 255}
	}
	cfg.Weave.Warp, cfg.Weave.Weft = rgb(f.Render.WarpColour), rgb(f.Render.WeftColour)
	cfg.Weave.WarpSpacing, cfg.Weave.WeftSpacing = f.ThreadSpacing()
	switch f.Weave.Type {
	case "twill":
		cfg.Weave.Pattern = render.Twill
	case "satin":
		cfg.Weave.Pattern = render.Satin
	default:
		cfg.Weave.Pattern = render.Plain
	}
	return cfg
}

// frameSource fills render frames from a rig's view.
type frameSource struct {
	v     *rig.View
	loops []rig.LoopStatus
}

func (s *frameSource) fill(dst *render.Frame) {
	st := s.v.Read()
	dst.Topology = &s.v.Topology
	dst.Snapshot = st.Snapshot
	dst.Fingers = *st.Fingers
	dst.Sim = *st.Sim
	for f := range sim.NumFingers {
		dst.A40[f] = st.Tactile.Frame.Fingers[f].A40Um
		dst.A320[f] = st.Tactile.Frame.Fingers[f].A320Um
	}
	dst.Overlay.Fabric = s.v.Fabric().Name
	s.loops = s.v.Loops(s.loops)
	for i := range dst.Overlay.Loops {
		dst.Overlay.Loops[i] = render.LoopStats{}
		// A rig in virtual time has no loop telemetry to show.
		if i < len(s.loops) && s.loops[i].RateHz > 0 {
			l := s.loops[i]
			dst.Overlay.Loops[i] = render.LoopStats{Name: l.Name, RateHz: l.RateHz, LatenessP99: time.Duration(l.LatenessP99 * 1e3)}
		}
	}
}

func runView(args []string) error {
	fs := newFlags("view", "view [flags]")
	duration := fs.Duration("duration", 0, "stop after this long (0: until the window closes or Ctrl-C)")
	out := fs.String("out", "sessions", "parent folder of the session folder (empty: record nothing)")
	fabric := fs.String("fabric", rig.DefaultFabric, "fabric to handle (haptex fabric list)")
	library := fs.String("library", defaultLibraryDir(), "user fabric library folder")
	script := fs.Bool("script", false, "play the showcase handling script instead of following the mouse")
	prio := fs.Int("priority", 80, "SCHED_FIFO priority of the 1 kHz thread (0: normal scheduling)")
	simNice := fs.Int("sim-nice", 10, "nice value of the simulation's thread, 1..19 (0: the process's; see the README)")
	refine := refineFlag(fs)
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if err := render.Probe(); err != nil {
		return fmt.Errorf("%w (run it under Xvfb: ./scripts/with-display haptex view)", err)
	}
	fab, err := kes.Library{Dir: *library}.Load(*fabric)
	if err != nil {
		return err
	}
	cfg := rig.Config{OutDir: *out, Duration: *duration, Priority: rtPriority(*prio), SimNice: simNiceCfg(*simNice), Fabric: fab, Logf: stderrf}
	if err := refine(&cfg); err != nil {
		return err
	}
	th := render.StartThread()
	defer th.Stop()
	var pi *pinchIntent
	if !*script {
		pi = &pinchIntent{radius: twin.DefaultScene().PadRadius}
		pi.rest[sim.Thumb] = [3]float64{0, 0.12, -0.06}
		pi.rest[sim.IndexFinger] = [3]float64{0, 0.12, 0.06}
		cfg.Intent = pi
	}
	r, err := rig.New(cfg)
	if err != nil {
		return err
	}
	v := r.NewView()
	w, err := render.NewWindow(th, renderConfig(v))
	if err != nil {
		return err
	}
	defer w.Close()
	if pi != nil {
		pi.p = w.Pinch() // set before the rig runs: its goroutines see it
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		sum *rig.Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := r.Run(ctx)
		cancel() // the run ended (duration, error): close the window too
		done <- result{sum, err}
	}()
	src := &frameSource{v: v}
	werr := w.Run(ctx, src.fill)
	cancel()
	res := <-done
	if res.sum != nil {
		printSummary(os.Stdout, res.sum)
	}
	if werr != nil && !errors.Is(werr, context.Canceled) && !errors.Is(werr, context.DeadlineExceeded) {
		return werr
	}
	return res.err
}

func runSnapshot(args []string) error {
	fs := newFlags("snapshot", "snapshot -o FILE.png [flags]")
	outPath := fs.String("o", "", "PNG file to write (required)")
	at := fs.Duration("at", 7200*time.Millisecond, "time into the showcase handling script to render (default: mid-stretch)")
	fabric := fs.String("fabric", rig.DefaultFabric, "fabric to handle (haptex fabric list)")
	library := fs.String("library", defaultLibraryDir(), "user fabric library folder")
	width := fs.Int("width", 1280, "image width [px]")
	height := fs.Int("height", 720, "image height [px]")
	magnify := fs.Float64("magnify", 6, "draw the yarns this many times coarser so the weave reads at overview distance")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if *outPath == "" {
		return fmt.Errorf("%w: -o FILE.png is required", errUsage)
	}
	if *at <= 0 {
		return fmt.Errorf("%w: -at must be positive", errUsage)
	}
	fab, err := kes.Library{Dir: *library}.Load(*fabric)
	if err != nil {
		return err
	}
	r, err := rig.New(rig.Config{Duration: *at, Fabric: fab})
	if err != nil {
		return err
	}
	v := r.NewView()
	if _, err := r.RunLockstep(); err != nil {
		return err
	}
	cfg := renderConfig(v)
	cfg.Width, cfg.Height = *width, *height
	cfg.Weave.Magnify = *magnify
	var frame render.Frame
	(&frameSource{v: v}).fill(&frame)
	f, err := os.Create(*outPath)
	if err != nil {
		return err
	}
	if err := render.Snapshot(f, cfg, &frame); err != nil {
		f.Close()
		os.Remove(*outPath)
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%s at %v of the showcase script)\n", *outPath, fab.Name, *at)
	return nil
}
