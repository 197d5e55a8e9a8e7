package replay_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu/emutest"
	"github.com/haptex/haptex/devices/record"
	"github.com/haptex/haptex/devices/replay"
	"github.com/haptex/haptex/devices/twin"
)

// rig is what a lockstep runner sees: devices behind the interfaces,
// advanced with explicit time when they are Clocked.
type rig struct {
	exo [2]devices.Exoskeleton
	tac [2]devices.TactileArray
}

// controller is a deterministic stand-in for the haptics loop: a PD law
// pulling each joint towards a moving target, with a gain that tests can
// perturb.
type controller struct{ kp float64 }

func (c controller) torque(t time.Duration, st *devices.ExoState) [3]float64 {
	var tau [3]float64
	for i := range 3 {
		target := 0.5 + 0.2*math.Sin(2*math.Pi*0.5*t.Seconds()+float64(i))
		tau[i] = c.kp*(target-st.Joint[i]) - 0.02*st.Force[i]
	}
	return tau
}

// run drives the rig in lockstep for d at 1 kHz with tactile frames every
// 25 ms, and returns how many commands it wrote.
func run(t *testing.T, r *rig, c controller, d time.Duration) int {
	t.Helper()
	var st devices.ExoState
	var f devices.TactileFrame
	n := 0
	for _, x := range r.exo {
		if err := x.Enable(true); err != nil {
			t.Fatal(err)
		}
	}
	for k := 1; time.Duration(k)*time.Millisecond <= d; k++ {
		now := time.Duration(k) * time.Millisecond
		for i, x := range r.exo {
			if cl, ok := x.(devices.Clocked); ok {
				cl.Advance(now)
			}
			if err := x.Read(&st); err != nil && !errors.Is(err, devices.ErrTimeout) {
				t.Fatalf("finger %d tick %d: %v", i, k, err)
			}
			cmd := devices.ExoCommand{Seq: uint32(k), Torque: c.torque(now, &st)}
			_ = x.Write(&cmd)
			n++
		}
		if k%25 == 0 {
			for i, a := range r.tac {
				if cl, ok := a.(devices.Clocked); ok {
					cl.Advance(now)
				}
				for p := range devices.Pins {
					f.A40Um[p] = math.Abs(st.Force[p%3]) * float64(10+p+i)
					f.A320Um[p] = math.Abs(st.Joint[p%3]) * float64(p)
				}
				f.Seq = uint32(k / 25)
				_ = a.WriteFrame(&f)
			}
		}
	}
	return n
}

var names = [2]string{"thumb", "index"}

// record runs the stand-in physical devices for d and records the session
// into dir.
func recordSession(t *testing.T, dir string, d time.Duration) {
	t.Helper()
	sess, err := record.NewSession(dir, record.Options{Lossless: true}) // lockstep outruns the disk
	if err != nil {
		t.Fatal(err)
	}
	var r rig
	for i := range 2 {
		x := emutest.NewMassDamperExo("haptex-emu-exo", names[i])
		rx, err := sess.Recorder(names[i]+"-exo", "exoskeleton", x.Spec())
		if err != nil {
			t.Fatal(err)
		}
		r.exo[i] = record.WrapExo(x, rx)
		a := emutest.NewPinArray("haptex-emu-tactile", names[i])
		ra, err := sess.Recorder(names[i]+"-tactile", "tactile", a.Spec())
		if err != nil {
			t.Fatal(err)
		}
		r.tac[i] = record.WrapTactile(a, ra)
	}
	run(t, &r, controller{kp: 0.3}, d)
	if err := sess.Close(); err != nil {
		t.Fatalf("recording: %v", err)
	}
}

func replayRig(t *testing.T, dir string) (*replay.Session, *rig) {
	t.Helper()
	s, err := replay.OpenSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	var r rig
	for i := range 2 {
		r.exo[i] = s.Exo[names[i]+"-exo"]
		r.tac[i] = s.Tactile[names[i]+"-tactile"]
		if r.exo[i] == nil || r.tac[i] == nil {
			t.Fatalf("session lacks %s devices", names[i])
		}
	}
	return s, &r
}

// TestReplayReproducesCommands records a 10 s lockstep session and replays
// it in lockstep: every command must come back bit for bit.
func TestReplayReproducesCommands(t *testing.T) {
	dir := t.TempDir()
	recordSession(t, dir, 10*time.Second)
	s, r := replayRig(t, dir)
	n := run(t, r, controller{kp: 0.3}, 10*time.Second)
	if err := s.Verify(); err != nil {
		t.Fatal(err)
	}
	for _, v := range s.Verdicts() {
		if v.Recorded == 0 || v.Matched != v.Recorded || v.Skipped != 0 {
			t.Errorf("%+v", v)
		}
	}
	t.Logf("replayed %d exoskeleton commands bit for bit: %+v", n, s.Verdicts())
	if got := s.Exo["thumb-exo"].Spec(); got.Transport != devices.TransportReplay || got.DoF != 3 {
		t.Errorf("replayed spec %+v", got)
	}
}

// TestReplayDetectsDifference: a loop that behaves differently from the
// recorded one is caught, with the first difference named.
func TestReplayDetectsDifference(t *testing.T) {
	dir := t.TempDir()
	recordSession(t, dir, time.Second)
	s, r := replayRig(t, dir)
	run(t, r, controller{kp: 0.3 * (1 + 1e-15)}, time.Second)
	err := s.Verify()
	if err == nil || !strings.Contains(err.Error(), "write 1 at run time 1ms") {
		t.Fatalf("Verify = %v, want the first write named", err)
	}
}

func TestReplayReadsByTime(t *testing.T) {
	dir := t.TempDir()
	recordSession(t, dir, 100*time.Millisecond)
	s, _ := replayRig(t, dir)
	x := s.Exo["thumb-exo"]
	var st devices.ExoState
	if err := x.Read(&st); !errors.Is(err, devices.ErrTimeout) || !st.Stale {
		t.Fatalf("Read before the first sample: %v %+v", err, st)
	}
	x.Advance(10 * time.Millisecond) // ten recorded samples are due: the newest is served
	if err := x.Read(&st); err != nil || st.DeviceTime != 10*time.Millisecond {
		t.Fatalf("Read at 10 ms: %v, device time %v", err, st.DeviceTime)
	}
	if v := x.Verdict(); v.Skipped != 9 {
		t.Errorf("skipped %d samples, want 9", v.Skipped)
	}
	if err := x.Read(&st); !errors.Is(err, devices.ErrTimeout) || !st.Stale {
		t.Errorf("second Read at the same time: %v stale=%v", err, st.Stale)
	}
}

// What an array reported its pins delivering is recorded with the run
// time it was read at and replayed at that time, bit for bit; an array
// that cannot tell records nothing and replays none.
func TestReplayDelivered(t *testing.T) {
	dir := t.TempDir()
	sess, err := record.NewSession(dir, record.Options{Lossless: true})
	if err != nil {
		t.Fatal(err)
	}
	a, err := twin.NewTactile(twin.DefaultTactileParams(), 0)
	if err != nil {
		t.Fatal(err)
	}
	ra, err := sess.Recorder("thumb-tactile", "tactile", a.Spec())
	if err != nil {
		t.Fatal(err)
	}
	b := emutest.NewPinArray("haptex-emu-tactile", "index")
	rb, err := sess.Recorder("index-tactile", "tactile", b.Spec())
	if err != nil {
		t.Fatal(err)
	}
	arrays := [2]*record.Tactile{record.WrapTactile(a, ra), record.WrapTactile(b, rb)}
	var got []devices.TactileFrame
	f := devices.TactileFrame{}
	for k := 1; k <= 8; k++ {
		now := time.Duration(k) * 25 * time.Millisecond
		for _, w := range arrays {
			w.Advance(now)
		}
		var d devices.TactileFrame
		if !arrays[0].Delivered(&d) {
			t.Fatalf("frame %d: the simulated array has no measurement", k)
		}
		got = append(got, d)
		if arrays[1].Delivered(&d) {
			t.Fatalf("frame %d: the stand-in array, which cannot measure, has one", k)
		}
		f.Seq = uint32(k)
		for p := range devices.Pins {
			f.A40Um[p], f.A320Um[p] = float64(k+p), float64(p%3)
		}
		for _, w := range arrays {
			if err := w.WriteFrame(&f); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := replay.OpenSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	pa, pb := s.Tactile["thumb-tactile"], s.Tactile["index-tactile"]
	var d devices.TactileFrame
	if pa.Delivered(&d) {
		t.Fatal("a measurement replayed before its run time")
	}
	for k := 1; k <= 8; k++ {
		now := time.Duration(k) * 25 * time.Millisecond
		pa.Advance(now)
		pb.Advance(now)
		if !pa.Delivered(&d) || d != got[k-1] {
			t.Fatalf("frame %d: replayed %+v, recorded %+v", k, d, got[k-1])
		}
		if pb.Delivered(&d) {
			t.Fatalf("frame %d: a measurement replayed for an array that had none", k)
		}
	}
	if got[7].Seq != 7 || got[7].A40Um[0] == 0 {
		t.Errorf("the last measurement, of frame %d: %v µm at pin 0, want frame 7 vibrating", got[7].Seq, got[7].A40Um[0])
	}
}
