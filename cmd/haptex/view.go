package main

import (
	"context"
	"errors"
	"fmt"
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
}

// pinchIntent makes the window's mouse pinch the intended motion of the
// simulated fingers: both pads on either side of the pinch point, closed or
// apart. Before the mouse has done anything the fingers rest away from the
// cloth, where the showcase script starts them. At is called from the
// haptics loop only.
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
func renderConfig(v *rig.View) (render.Config, error) {
	a := v.Fabric().Appearance()
	p, err := render.ParsePattern(a.Pattern)
	if err != nil {
		return render.Config{}, err
	}
	cfg := render.Config{PadRadius: v.PadRadius(), Weave: render.Weave{
		Warp: a.Warp, Weft: a.Weft, WarpSpacing: a.WarpSpacing, WeftSpacing: a.WeftSpacing, Pattern: p}}
	cfg.RodRadius, cfg.RodY = v.Rod()
	// The insets' colour bars end at what the arrays can render.
	cfg.A40FullScaleUm, cfg.A320FullScaleUm = v.PinLimits()
	return cfg, nil
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
	fs := newFlags("view", "view [flags]", viewNotes, summaryNotes)
	duration := fs.Duration("duration", 0, "stop after this long (0: until the window closes or Ctrl-C)")
	out := fs.String("out", "sessions", "parent folder of the session folder (empty: record nothing)")
	fabric := fs.String("fabric", rig.DefaultFabric, "fabric to handle (haptex fabric list)")
	library := fs.String("library", defaultLibraryDir(), "user fabric library folder")
	script := fs.Bool("script", false, "play the showcase handling script instead of following the mouse")
	prio := fs.Int("priority", 80, "SCHED_FIFO priority of the 1 kHz thread (0: normal scheduling)")
	simNice := fs.Int("sim-nice", 10, "nice value of the simulation's thread, 1..19 (0: the process's; see the README)")
	refine := refineFlag(fs)
	devFile := fs.String("devices", "", "devices file (TOML; haptex devices check FILE): the devices drive the fingers (the mouse then moves none; a finger left simulated plays the showcase script)")
	recDevices := fs.Bool("record-devices", false, "record every device call into the session folder for haptex replay (default: on with -devices and -out)")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if *devFile != "" && !flagSet(fs, "record-devices") {
		*recDevices = *out != ""
	}
	if *recDevices && *out == "" {
		return fmt.Errorf("%w: -record-devices needs a session folder (-out)", errUsage)
	}
	if err := render.Probe(); err != nil {
		return fmt.Errorf("%w (run it under Xvfb: ./scripts/with-display haptex view)", err)
	}
	fab, err := kes.Library{Dir: *library}.Load(*fabric)
	if err != nil {
		return err
	}
	cfg := rig.Config{OutDir: *out, Duration: *duration, Priority: *prio, NormalPriority: *prio <= 0, SimNice: *simNice, ProcessNice: *simNice <= 0, Fabric: fab, Logf: stderrf, RecordDevices: *recDevices}
	if err := refine(&cfg); err != nil {
		return err
	}
	if *devFile != "" {
		set, err := openDevices(&cfg, *devFile, false)
		if err != nil {
			return err
		}
		defer set.close()
		*script = true
	}
	th := render.StartThread()
	defer th.Stop()
	var pi *pinchIntent
	if !*script {
		sc := twin.DefaultScene()
		pi = &pinchIntent{radius: sc.PadRadius}
		start := twin.DefaultScript(sc)
		for f := range pi.rest {
			pi.rest[f], _ = start.At(0, f)
		}
		cfg.Intent = pi
	}
	r, err := rig.New(cfg)
	if err != nil {
		return err
	}
	v := r.NewView()
	rc, err := renderConfig(v)
	if err != nil {
		return err
	}
	// A camera that followed the mouse pair would drag it along; with the
	// script the view follows the pads and the mouse moves no finger.
	rc.NoFollow, rc.NoMouse = pi != nil, pi == nil
	w, err := render.NewWindow(th, rc)
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
