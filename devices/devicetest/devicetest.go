// Package devicetest checks that an implementation honours the device
// contracts of package devices, as iotest does for io.Reader: one body of
// checks run over the simulated twin, the serial link to the emulator, the
// HID link, and the wrappers (reconnect, record).
//
// It never fakes a device itself; it only drives the one it is given.
package devicetest

import (
	"errors"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
)

// Options tune the checks.
type Options struct {
	Step  time.Duration // time between ticks; default 1 ms
	Ticks int           // length of the driven run; default 300
	// Responds asks for a physical check: a positive torque on joint 0
	// moves joint 0 in the positive direction.
	Responds bool
}

func (o *Options) defaults() {
	if o.Step <= 0 {
		o.Step = time.Millisecond
	}
	if o.Ticks <= 0 {
		o.Ticks = 300
	}
}

// clock advances a Clocked device with explicit time, or lets real time
// pass for a real one.
type clock struct {
	c    devices.Clocked
	step time.Duration
	t    time.Duration
}

func newClock(dev any, step time.Duration) *clock {
	c, _ := dev.(devices.Clocked)
	return &clock{c: c, step: step}
}

func (c *clock) tick() {
	c.t += c.step
	if c.c != nil {
		c.c.Advance(c.t)
		return
	}
	time.Sleep(c.step)
}

func readOK(err error) bool { return err == nil || errors.Is(err, devices.ErrTimeout) }

// allocsPerRun returns the fewest allocations per call of f in up to three
// measurements of 100 calls. testing.AllocsPerRun counts the whole
// process, so an emulator in the same process can add to one measurement
// (CI once saw 1 per call while the emulator stalled); an allocation in f
// itself shows in every measurement.
func allocsPerRun(f func()) float64 {
	a := testing.AllocsPerRun(100, f)
	for i := 1; i < 3 && a > 0; i++ {
		a = min(a, testing.AllocsPerRun(100, f))
	}
	return a
}

// Exoskeleton checks x, a freshly opened exoskeleton, and closes it.
func Exoskeleton(t *testing.T, x devices.Exoskeleton, opt Options) {
	t.Helper()
	opt.defaults()
	sp := x.Spec()
	if sp.DoF < 1 || sp.DoF > 3 {
		t.Errorf("Spec().DoF = %d", sp.DoF)
	}
	for i := range sp.DoF {
		if !(sp.JointMin[i] <= sp.JointMax[i]) || !(sp.MaxTorque[i] > 0) {
			t.Errorf("joint %d: limits [%v, %v], max torque %v", i, sp.JointMin[i], sp.JointMax[i], sp.MaxTorque[i])
		}
	}
	if !(sp.MaxForcePeak >= sp.MaxForceCont) || !(sp.MaxForceCont > 0) || sp.SamplePeriod <= 0 {
		t.Errorf("force limits %v/%v, sample period %v", sp.MaxForceCont, sp.MaxForcePeak, sp.SamplePeriod)
	}
	clk := newClock(x, opt.Step)
	cmd := devices.ExoCommand{Seq: 1}
	if err := x.Write(&cmd); !errors.Is(err, devices.ErrDisabled) {
		t.Errorf("Write before Enable(true) = %v, want ErrDisabled", err)
	}
	// Enable need not wait for the device (a device on a link reports the
	// stage on a few samples later, and ErrTimeout from an implementation
	// that waits means the request went out); that it does switch on is
	// checked below.
	if err := x.Enable(true); err != nil && !errors.Is(err, devices.ErrTimeout) {
		t.Fatalf("Enable(true): %v", err)
	}
	var st, first, kept devices.ExoState
	fresh, freshLate, enabled := 0, 0, false
	var lastTime time.Duration
	torque := 0.2 * sp.MaxTorque[0]
	// A device behind a pseudo-terminal shares the CPU with the test: on a
	// loaded machine the run goes on (up to 10 times longer) until it has
	// seen enough fresh samples and, for a responding device, the joint
	// move and a fresh sample after the middle of the run, so that only a
	// device that never does fails.
	done := func(k int) bool {
		return k > opt.Ticks && fresh >= opt.Ticks/4 && freshLate > 0 && (!opt.Responds || st.Joint[0] > first.Joint[0])
	}
	k := 1
	for ; k <= 10*opt.Ticks && !done(k); k++ {
		clk.tick()
		err := x.Read(&st)
		if !readOK(err) {
			t.Fatalf("tick %d: Read: %v", k, err)
		}
		if !st.Stale {
			if fresh == 0 {
				first = st
			}
			fresh++
			if k > opt.Ticks/2 {
				freshLate++
			}
			if st.DeviceTime < lastTime {
				t.Errorf("tick %d: device time went back from %v to %v", k, lastTime, st.DeviceTime)
			}
			lastTime = st.DeviceTime
		}
		enabled = enabled || st.Enabled
		if k == opt.Ticks/2 {
			kept = st
		}
		cmd.Seq = uint32(k + 1)
		cmd.Torque = [3]float64{torque, 0, 0}
		if err := x.Write(&cmd); err != nil {
			t.Fatalf("tick %d: Write: %v", k, err)
		}
	}
	if fresh < opt.Ticks/4 {
		t.Errorf("only %d fresh samples in %d ticks", fresh, k-1)
	}
	if !enabled {
		t.Error("the device never reported itself enabled")
	}
	if freshLate == 0 || kept.Seq == st.Seq && kept.DeviceTime == st.DeviceTime {
		t.Error("the sample did not change over the second half of the run")
	}
	if opt.Responds && !(st.Joint[0] > first.Joint[0]) {
		t.Errorf("a positive torque on joint 0 did not move it: %v -> %v", first.Joint[0], st.Joint[0])
	}
	if st.AckSeq != 0 && st.AckSeq > cmd.Seq {
		t.Errorf("AckSeq %d beyond the newest command %d", st.AckSeq, cmd.Seq)
	}
	allocs := allocsPerRun(func() {
		clk.tick()
		_ = x.Read(&st)
		cmd.Seq++
		_ = x.Write(&cmd)
	})
	if allocs != 0 {
		t.Errorf("Read+Write allocate %v times per tick", allocs)
	}
	if err := x.Enable(false); err != nil {
		t.Errorf("Enable(false): %v", err)
	}
	if err := x.Write(&cmd); !errors.Is(err, devices.ErrDisabled) {
		t.Errorf("Write after Enable(false) = %v, want ErrDisabled", err)
	}
	disabled := false
	for range 10 * opt.Ticks {
		clk.tick()
		if readOK(x.Read(&st)) && !st.Stale && !st.Enabled {
			disabled = true
			break
		}
	}
	if !disabled {
		t.Error("the device never reported itself disabled after Enable(false)")
	}
	if err := x.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TactileArray checks a, a freshly opened tactile array, and closes it.
func TactileArray(t *testing.T, a devices.TactileArray, opt Options) {
	t.Helper()
	opt.defaults()
	sp := a.Spec()
	if sp.Rows*sp.Cols != devices.Pins || !(sp.PitchM > 0) || !(sp.MaxA40Um > 0) || !(sp.MaxA320Um > 0) {
		t.Errorf("spec %+v", sp)
	}
	clk := newClock(a, opt.Step)
	var f devices.TactileFrame
	sr, hasStatus := a.(devices.StatusReader)
	var st devices.TactileStatus
	acked := false
	// As for the exoskeleton, the run goes on (up to 10 times longer) until
	// the status has acknowledged a frame.
	for k := 1; k <= 10*opt.Ticks && (k <= opt.Ticks || hasStatus && !acked); k++ {
		clk.tick()
		if k%25 == 1 {
			f.Seq++
			for i := range devices.Pins {
				f.A40Um[i] = sp.MaxA40Um * float64(i) / devices.Pins
				f.A320Um[i] = sp.MaxA320Um * float64(devices.Pins-i) / devices.Pins
			}
			if err := a.WriteFrame(&f); err != nil {
				t.Fatalf("tick %d: WriteFrame: %v", k, err)
			}
		}
		if hasStatus {
			if err := sr.Status(&st); !readOK(err) {
				t.Fatalf("tick %d: Status: %v", k, err)
			}
			acked = acked || st.AckSeq != 0
		}
	}
	if hasStatus && !acked {
		t.Error("no frame was ever acknowledged in the status")
	}
	allocs := allocsPerRun(func() {
		clk.tick()
		f.Seq++
		_ = a.WriteFrame(&f)
		if hasStatus {
			_ = sr.Status(&st)
		}
	})
	if allocs != 0 {
		t.Errorf("WriteFrame+Status allocate %v times", allocs)
	}
	if err := a.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
