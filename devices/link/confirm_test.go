package link_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/devices/wire"
	"github.com/haptex/haptex/internal/rt"
)

func waitConfirm(t *testing.T, x *link.Exo, want devices.Confirm) devices.ExoState {
	t.Helper()
	var st devices.ExoState
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Microsecond) {
		if err := x.Read(&st); err != nil && !errors.Is(err, devices.ErrTimeout) {
			t.Fatal(err)
		}
		if st.Confirm == want {
			return st
		}
	}
	t.Fatalf("Confirm %v, want %v", st.Confirm, want)
	return st
}

// waitEnabled reads until the device reports its stage on (as the servo
// does before it renders): a STATE sampled before the ENABLE 1 could
// otherwise confirm the next request for the stage off, and the STATE
// after it take that back (counted as revoked), a race the test need not
// run into.
func waitEnabled(t *testing.T, x *link.Exo) {
	t.Helper()
	var st devices.ExoState
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Microsecond) {
		if err := x.Read(&st); err != nil && !errors.Is(err, devices.ErrTimeout) {
			t.Fatal(err)
		}
		if st.Enabled && st.Confirm == devices.ConfirmNone {
			return
		}
	}
	t.Fatalf("the device never reported its stage on: %+v", st)
}

// The safe state's record: a session starts off and the first STATE
// confirms it; Enable(true) ends the request; Enable(false) starts one the
// device confirms. A device that goes mute leaves the request unconfirmed:
// after the bound the host falls silent (no frame at all) and refuses to
// enable the device.
func TestConfirm(t *testing.T) {
	x, dev := dial(t)
	waitConfirm(t, x, devices.ConfirmDevice)
	if err := x.Enable(true); err != nil {
		t.Fatal(err)
	}
	waitEnabled(t, x)
	if err := x.Enable(false); err != nil {
		t.Fatal(err)
	}
	st := waitConfirm(t, x, devices.ConfirmDevice)
	if st.Enabled {
		t.Errorf("confirmed while the STATE says enabled")
	}
	// On a loaded host a confirmation can come after the bound: the link
	// falls silent, and the device's late STATE ends the silence.
	if s := x.Stats().Safe; s.Requests != 2 || s.ByDevice != 2 || s.Silenced != s.Late || s.ConfirmUs.Count != 2 {
		t.Errorf("stats %+v", s)
	}

	x.Enable(true)
	waitEnabled(t, x)
	dev.Detach() // mute: it reads and sends nothing more
	// The request and the reads that repeat its ENABLE 0, from a
	// real-time thread that sleeps in the kernel, as the servo's loop
	// reads: at normal priority, beside other work, this goroutine was
	// held for milliseconds with the repeats it would have sent.
	silenced := make(chan error, 1)
	go func() {
		release := rt.AddProcs(1)
		defer release()
		_ = rt.LockRealtime(link.KeeperPriority + 2)
		x.Enable(false)
		var st devices.ExoState
		tick := unix.NsecToTimespec(int64(200 * time.Microsecond))
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); unix.ClockNanosleep(unix.CLOCK_MONOTONIC, 0, &tick, nil) {
			if err := x.Read(&st); err != nil && !errors.Is(err, devices.ErrTimeout) {
				silenced <- err
				return
			}
			if st.Confirm == devices.ConfirmSilenced {
				silenced <- nil
				return
			}
		}
		silenced <- fmt.Errorf("Confirm %v, want %v", st.Confirm, devices.ConfirmSilenced)
	}()
	if err := <-silenced; err != nil {
		t.Fatal(err)
	}
	out := x.Stats().FramesOut
	time.Sleep(30 * time.Millisecond)
	var st2 devices.ExoState
	x.Read(&st2)
	if got := x.Stats().FramesOut; got != out {
		t.Errorf("the host sent %d frames while silent on purpose", got-out)
	}
	var nce *link.NotConfirmedError
	if err := x.Enable(true); !errors.As(err, &nce) || nce.Confirm != devices.ConfirmSilenced {
		t.Errorf("Enable(true) while silent: %v", err)
	}
	// A STATE the device sent before it went mute may still arrive, late,
	// within the bound: the silence then names the stage it reported on.
	if s := x.Stats().Safe; s.Silenced != s.Late+1 || !strings.Contains(s.Last, "no STATE reported the power stage off") && !strings.Contains(s.Last, "still reported its power stage on") {
		t.Errorf("stats %+v", s)
	}
	// The repeats count: ENABLE 0 went out every millisecond of the bound.
	if s := x.Stats().Safe; s.EnableOff < 2 {
		t.Errorf("%d ENABLE 0 repeats in the 5 ms bound", s.EnableOff)
	}
}

// A Read while a request is pending (it repeats ENABLE 0) allocates
// nothing either.
func TestConfirmNoAllocs(t *testing.T) {
	x, _ := dial(t)
	var st devices.ExoState
	if a := testing.AllocsPerRun(200, func() {
		x.Enable(true)
		x.Enable(false)
		x.Read(&st)
	}); a != 0 {
		t.Errorf("%v allocations", a)
	}
}

func capsOf(sp devices.ExoSpec) wire.CapsExo {
	c := wire.CapsExo{Caps: wire.Caps{Major: wire.Major, Kind: wire.KindExo, PeriodUs: 1000, WatchdogMs: 50}, DoF: 3}
	for i := range 3 {
		c.JointMinURad[i] = int32(sp.JointMin[i] * 1e6)
		c.JointMaxURad[i] = int32(sp.JointMax[i] * 1e6)
		c.MaxTorqueUNm[i] = uint32(sp.MaxTorque[i] * 1e6)
	}
	c.MaxForceContMN, c.MaxForcePeakMN, c.MaxStiffnessNPerM = uint32(sp.MaxForceCont*1e3), uint32(sp.MaxForcePeak*1e3), 4000
	return c
}

// The host's CAPS checks against haptex's own kinematics: the simulated
// twin's own numbers pass; a torque above what the host's 20 N needs at
// the joint's longest lever arm does not, nor a joint range the model
// does not cover; a tactile array of another shape is refused.
func TestLimits(t *testing.T) {
	p := twin.DefaultExoParams()
	kin, err := exo.New(p.Kinematics)
	if err != nil {
		t.Fatal(err)
	}
	sp := devices.ExoSpec{JointMin: p.Kinematics.JointMin, JointMax: p.Kinematics.JointMax, MaxTorque: p.Drive.MaxTorque, MaxForceCont: 5, MaxForcePeak: 10}
	var l link.Limits
	c := capsOf(sp)
	if err := l.CheckExo(&c, kin); err != nil {
		t.Fatalf("the twin's own CAPS: %v", err)
	}
	arms := link.LeverArms(kin, p.Kinematics.JointMin, p.Kinematics.JointMax)
	// The pad is at most |a2| + |a3| + |tool| from the flexion axes.
	if arms[1] < 0.19 || arms[1] > 0.11+0.09+0.0081 || arms[2] < 0.09 || arms[2] > 0.09+0.0081 {
		t.Errorf("lever arms %v m", arms)
	}
	for _, tc := range []struct {
		edit func(*wire.CapsExo)
		want string
	}{
		{func(c *wire.CapsExo) { c.MaxTorqueUNm[2] = 2_000_000 }, "CAPS max_torque_unm[2] = 2000000: above 1.88"},
		{func(c *wire.CapsExo) { c.JointMaxURad[1] = 1_000_000 }, "CAPS joint_max_urad[1] = 1000000: above the kinematic model's joint 2 limit of 0.8000 rad"},
		{func(c *wire.CapsExo) { c.JointMinURad[0] = -1_000_000 }, "CAPS joint_min_urad[0] = -1000000"},
		{func(c *wire.CapsExo) { c.WatchdogMs = 5 }, "CAPS watchdog_ms = 5: below 10 ms"},
	} {
		c := capsOf(sp)
		tc.edit(&c)
		var ce *link.CapsError
		if err := l.CheckExo(&c, kin); !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
	ct := wire.CapsTactile{Caps: wire.Caps{Major: wire.Major, Kind: wire.KindTactile, PeriodUs: 2000, WatchdogMs: 100}, Rows: 4, Cols: 6, MaxA40Nm: 200_000, MaxA320Nm: 30_000, FramePeriodUs: 25000}
	if err := l.CheckTactile(&ct); err == nil || !strings.Contains(err.Error(), "CAPS rows = 4 (cols 6): haptex drives 6 x 4 arrays") {
		t.Errorf("a 4 x 6 array: %v", err)
	}
	ct.Rows, ct.Cols = 6, 4
	if err := l.CheckTactile(&ct); err != nil {
		t.Error(err)
	}
}
