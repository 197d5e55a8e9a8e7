package rig

import (
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// goneArray is the simulated array whose writes fail from frame from on,
// as a serial array's do once its cable is pulled.
type goneArray struct {
	*twin.Tactile
	from, n int
}

func (a *goneArray) WriteFrame(f *devices.TactileFrame) error {
	a.n++
	if a.n > a.from {
		return devices.ErrDisconnected
	}
	return a.Tactile.WriteFrame(f)
}

// The run's summary counts, per finger, the frames its array did not
// take: the index's array gone after 10 frames misses the rest, the
// thumb's none.
func TestSummaryCountsFramesNotWritten(t *testing.T) {
	tac, err := twin.NewTactile(twin.DefaultTactileParams(), sim.IndexFinger)
	if err != nil {
		t.Fatal(err)
	}
	cfg := coarse(Config{Duration: time.Second})
	cfg.Tactile[sim.IndexFinger] = &goneArray{Tactile: tac, from: 10}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.RunLockstep()
	if err != nil {
		t.Fatal(err)
	}
	th, ix := sum.Fingers[sim.Thumb], sum.Fingers[sim.IndexFinger]
	if ix.TactileFrames != 40 || ix.TactileNotWritten != 30 || th.TactileFrames != 40 || th.TactileNotWritten != 0 {
		t.Errorf("thumb %d of %d frames not written, index %d of %d; want 0 of 40 and 30 of 40",
			th.TactileNotWritten, th.TactileFrames, ix.TactileNotWritten, ix.TactileFrames)
	}
}
