package rig

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// laggingArray is the simulated array whose measurement of a frame comes
// one frame late, as a device array's does over its line: each Delivered
// gives the reading the one before took.
type laggingArray struct {
	*twin.Tactile
	held devices.TactileFrame
	have bool
}

func (a *laggingArray) Delivered(dst *devices.TactileFrame) bool {
	var now devices.TactileFrame
	a.Tactile.Delivered(&now)
	if a.held.Seq == now.Seq && a.have {
		*dst = a.held // the same window read again
		return true
	}
	ok := a.have
	*dst, a.held, a.have = a.held, now, true
	return ok
}

// The run's summary says what each array measured its pins delivering
// against what was sent, each measurement paired with the frame it is
// of: the showcase's pins deliver what they are sent within the pins'
// 1 dB spread; a measurement that comes a frame late is paired with that
// frame, not the newest; pins that did not move are named; an array that
// measures nothing has no account.
func TestDeliverySummary(t *testing.T) {
	const duration = 9 * time.Second // the showcase's contacts end 8.7 s in
	type array func(*twin.Tactile) devices.TactileArray
	simulated := func(a *twin.Tactile) devices.TactileArray { return a }
	late := func(a *twin.Tactile) devices.TactileArray { return &laggingArray{Tactile: a} }
	dead := []int{9, 10, 13, 14}
	deadArray := func(a *twin.Tactile) devices.TactileArray { return deadPins{Tactile: a, dead: dead} }
	unmeasured := func(a *twin.Tactile) devices.TactileArray { return struct{ devices.TactileArray }{a} }
	for _, tc := range []struct {
		name   string
		arrays [sim.NumFingers]array
	}{
		{"simulated thumb, a frame late index", [sim.NumFingers]array{simulated, late}},
		{"unmeasured thumb, dead pins index", [sim.NumFingers]array{unmeasured, deadArray}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := coarse(Config{Duration: duration})
			for f := range sim.NumFingers {
				a, err := twin.NewTactile(twin.DefaultTactileParams(), f)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Tactile[f] = tc.arrays[f](a)
			}
			r, sum := lockstepSummary(t, cfg)
			frames := int(duration / r.cfg.TactilePeriod)
			for f, fs := range sum.Fingers {
				d := fs.TactileDelivered
				kind := tc.arrays[f]
				if kind == nil {
					continue
				}
				switch {
				case isArray(kind, unmeasured):
					if d != nil {
						t.Errorf("%s: an account from an array that measures nothing: %+v", fs.Finger, d)
					}
					continue
				case d == nil:
					t.Fatalf("%s: no account", fs.Finger)
				}
				r40, ok40 := d.Ratio(0)
				r320, ok320 := d.Ratio(1)
				t.Logf("%s: %d frames paired, %d not; delivered %.3f (40 Hz) and %.3f (320 Hz) of what was sent; still pins %v", fs.Finger, d.Frames, d.Unpaired, r40, r320, d.StillPins)
				// Every frame but the last (which no later frame
				// measures) and, a frame late, the first (whose
				// measurement came with none to pair).
				wantFrames := frames - 1
				if isArray(kind, late) {
					wantFrames--
				}
				if d.Frames != wantFrames || d.Unpaired != frames-1-wantFrames {
					t.Errorf("%s: %d frames paired, %d not; want %d of %d", fs.Finger, d.Frames, d.Unpaired, wantFrames, frames-1)
				}
				isDead := isArray(kind, deadArray)
				for b, ok := range []bool{ok40, ok320} {
					r, _ := d.Ratio(b)
					// The pins' sensitivities spread by 1 dB; the frames in
					// which the command changes ring in.
					if !ok || !isDead && math.Abs(20*math.Log10(r)) > 1 {
						t.Errorf("%s: band %d delivered %.3f of what was sent (measured: %v)", fs.Finger, b, r, ok)
					}
				}
				var want []int
				if isDead {
					for _, p := range dead {
						if r.tactile.deliv[f].driven[p] >= stillMinFrames {
							want = append(want, p)
						}
					}
					if len(want) == 0 {
						t.Fatalf("none of the dead pins %v was driven in %d frames", dead, stillMinFrames)
					}
				}
				if !slices.Equal(d.StillPins, want) {
					t.Errorf("%s: still pins %v, want %v", fs.Finger, d.StillPins, want)
				}
			}
		})
	}
}

// isArray reports whether a and b are the same constructor.
func isArray(a, b func(*twin.Tactile) devices.TactileArray) bool {
	return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
}
