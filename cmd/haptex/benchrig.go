package main

// The benches that assemble the rig around a part: the servo with the
// showcase's contact tracking, and the view.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/haptics/servobench"
	"github.com/haptex/haptex/render"
	"github.com/haptex/haptex/render/renderbench"
	"github.com/haptex/haptex/sim"
)

// benchControl measures the servo in its lab (servobench) and the
// contact tracking on the showcase, run in lockstep on the simulated
// exoskeletons: the figures are properties of the code.
func benchControl(_ context.Context, o benchOpts) (any, error) {
	res, err := servobench.Bench(servobench.Options{})
	if err != nil {
		return nil, err
	}
	r, err := rig.New(rig.Config{Duration: showcaseDuration})
	if err != nil {
		return nil, err
	}
	sum, err := r.RunLockstep()
	if err != nil {
		return nil, err
	}
	res.ContactTracking = sum.ContactTracking
	if ct := sum.ContactTracking; ct != nil {
		res.ZWidth.Asked = append(res.ZWidth.Asked, servobench.AskedRange{Label: "the showcase asks", MaxNpm: max(ct.MaxStiffNpm[0], ct.MaxStiffNpm[1])})
	}
	rp, err := servobench.RandomPinches()
	if err != nil {
		return nil, err
	}
	res.ZWidth.Asked = append(res.ZWidth.Asked,
		servobench.AskedRange{Label: fmt.Sprintf("%d random pinch trajectories ask (99th percentile)", rp.Trajectories), MaxNpm: rp.P99Npm},
		servobench.AskedRange{Label: fmt.Sprintf("%d random pinch trajectories ask (stiffest)", rp.Trajectories), MaxNpm: rp.LargestNpm})
	if o.chart != "" {
		if err := servobench.ZWidthChart(res.ZWidth, o.chart); err != nil {
			return nil, err
		}
		res.ZWidth.Chart = o.chart
	}
	return &res, nil
}

// showcaseDuration covers the showcase handling script and its release.
const showcaseDuration = 12 * time.Second

// lockstepRuns is how many times the lockstep bench runs the session: its
// speed varies from run to run on a shared machine, so it reports the
// median and the best.
const lockstepRuns = 3

// benchRender draws the showcase at 64 x 64 nodes and 1280 x 720 offscreen:
// the state 1 s into the handling script, as the rig computed it, seen as
// the view first shows it (the finger pair) and then the whole stand.
func benchRender(_ context.Context, o benchOpts) (any, error) {
	stop, err := ensureDisplay()
	if errors.Is(err, errNoXvfb) {
		return map[string]any{"skipped": err.Error()}, nil
	}
	if err != nil {
		return nil, err
	}
	defer stop()
	cfg := rig.Config{Duration: time.Second, Sim: sim.Config{NodesU: 64, NodesV: 64}}
	r, err := rig.New(cfg)
	if err != nil {
		return nil, err
	}
	v := r.NewView()
	if _, err := r.RunLockstep(); err != nil {
		return nil, err
	}
	rc, err := renderConfig(v)
	if err != nil {
		return nil, err
	}
	rc.Width, rc.Height = 1280, 720
	var frame render.Frame
	(&frameSource{v: v}).fill(&frame)
	rc.Camera = render.DefaultCamera().AimedAt(&frame) // what the view shows
	res, err := renderbench.Bench(rc, &frame, o.frames)
	if err != nil {
		return nil, err
	}
	// The whole stand, as the view showed it by default before it framed
	// the hand: a baseline from the same minutes.
	rc.Camera = render.StandCamera()
	stand, err := renderbench.Bench(rc, &frame, o.frames)
	return &renderResult{Result: res, Stand: &stand}, err
}

// renderResult is the render bench's JSON: the default view (the finger
// pair) and, under "stand_view", the whole stand.
type renderResult struct {
	renderbench.Result
	Stand *renderbench.Result `json:"stand_view"`
}
