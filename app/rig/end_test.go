package rig

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// stuckOnExo is the simulated exoskeleton whose samples always report
// its power stage on.
type stuckOnExo struct{ *twin.Exo }

func (s stuckOnExo) Read(st *devices.ExoState) error {
	err := s.Exo.Read(st)
	st.Enabled = true
	return err
}

// A device that never reports its power stage off ends a real-time run
// with an error naming it, after the wait; the summary says it was
// switched off, not confirmed, and the other finger confirmed.
func TestRunEndsUnconfirmed(t *testing.T) {
	cfg := coarse(Config{Duration: 300 * time.Millisecond, NormalPriority: true})
	exo, err := twin.NewExo(twin.DefaultExoParams(), twin.DefaultBase(sim.Thumb), twin.DefaultScript(twin.DefaultScene()), sim.Thumb)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Exos[sim.Thumb] = stuckOnExo{exo}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	sum, err := r.Run(context.Background())
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "the thumb exoskeleton did not confirm its power stage off within 500ms") || strings.Contains(err.Error(), "\n") {
		t.Errorf("run's error %v, want one line naming the thumb", err)
	}
	if sum == nil || len(sum.EndOfRun) != 2 || sum.EndOfRun[sim.Thumb].SafeBy != "commanded" || sum.EndOfRun[sim.IndexFinger].SafeBy != "device" {
		t.Fatalf("end of run %+v", sum)
	}
	if took < 300*time.Millisecond+endWait {
		t.Errorf("the run returned %v after its start, before its 300 ms and the %v wait", took, endWait)
	}
}
