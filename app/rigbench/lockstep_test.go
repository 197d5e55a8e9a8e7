package rigbench

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/haptex/haptex/app/rig"
)

// The lockstep bench runs the default session as often as asked and once
// on one core, records every row, reports speeds that agree with its wall times, and leaves no
// session folder behind.
func TestBenchLockstep(t *testing.T) {
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "haptex-bench-lockstep-*"))
	procs := runtime.GOMAXPROCS(0)
	b, err := Lockstep(context.Background(), 200*time.Millisecond, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", b)
	if b.Side != rig.DefaultSide || len(b.WallS) != 2 || b.VirtualS != 0.2 {
		t.Fatalf("side %d, %d runs, %g s", b.Side, len(b.WallS), b.VirtualS)
	}
	// Per run, the one-core run included: 200 haptics rows, 40 sim rows,
	// 8 tactile rows.
	if b.Rows != 3*(200+40+8) || b.Dropped != 0 {
		t.Errorf("%d rows, %d dropped", b.Rows, b.Dropped)
	}
	slow, fast := max(b.WallS[0], b.WallS[1]), min(b.WallS[0], b.WallS[1])
	if b.SpeedMax != 0.2/fast || b.SpeedP50 != 0.2/slow {
		t.Errorf("speeds %g, %g for wall times %v", b.SpeedP50, b.SpeedMax, b.WallS)
	}
	if !(b.OneCoreWallS > 0) || b.OneCoreSpeed != 0.2/b.OneCoreWallS || b.TwoCoreBound != 2*b.OneCoreSpeed {
		t.Errorf("one core: %g s, speed %g, bound %g", b.OneCoreWallS, b.OneCoreSpeed, b.TwoCoreBound)
	}
	if p := runtime.GOMAXPROCS(0); p != procs {
		t.Errorf("GOMAXPROCS %d after the bench, %d before", p, procs)
	}
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "haptex-bench-lockstep-*"))
	if len(after) != len(before) {
		t.Errorf("the bench left %v", after)
	}
	if _, err := Lockstep(context.Background(), 0, 1); err == nil {
		t.Error("no error for a zero duration")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Lockstep(ctx, time.Second, 1); err == nil {
		t.Error("no error for a cancelled context")
	}
}
