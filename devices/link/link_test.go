package link_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/emu/emutest"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/transport"
	"github.com/haptex/haptex/devices/transport/transporttest"
	"github.com/haptex/haptex/devices/wire"
)

// pipeDevice serves an emulated device on an in-memory pipe and returns
// the host end.
func pipeDevice(t *testing.T, dev *emu.Device) transport.Conn {
	t.Helper()
	host, devEnd := transporttest.Pipe("host", "dev")
	emutest.Serve(dev, devEnd)
	stop := make(chan struct{})
	start := time.Now()
	go func() {
		tk := time.NewTicker(250 * time.Microsecond)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				dev.Tick(time.Since(start))
			}
		}
	}()
	t.Cleanup(func() { close(stop); devEnd.Close() })
	return host
}

// serveFake runs a hand-written device on dev until the line closes:
// answer gets every frame the host sends, in order, and a send that
// numbers the device's frames from 1 after each HELLO.
func serveFake(dev transport.Conn, answer func(f *wire.Frame, send func(wire.Body))) {
	var d wire.Decoder
	var e wire.Encoder
	buf := make([]byte, 4096)
	seq := uint32(0)
	send := func(b wire.Body) {
		seq++
		dev.Write(e.Encode(b, seq, uint64(seq)*1000))
	}
	for {
		n, err := dev.Read(buf)
		if err != nil {
			return
		}
		for p := buf[:n]; len(p) > 0; {
			k, f, _ := d.Decode(p)
			p = p[k:]
			if f == nil {
				continue
			}
			if f.Type == wire.TypeHello {
				seq = 0
			}
			answer(f, send)
		}
	}
}

func newExoDevice() *emu.Device {
	start := time.Now()
	return emu.NewExoDevice(emu.DeviceConfig{Name: "exo", WatchdogMs: 2000}, emutest.NewMassDamperExo("m", "s"),
		func() time.Duration { return time.Since(start) })
}

func dial(t *testing.T) (*link.Exo, *emu.Device) {
	t.Helper()
	dev := newExoDevice()
	x, err := link.DialExo(pipeDevice(t, dev), link.Options{SilenceTimeout: 2 * time.Second, Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x, dev
}

func TestWriteRules(t *testing.T) {
	x, dev := dial(t)
	cmd := devices.ExoCommand{Seq: 1, Torque: [3]float64{0.1, 0, 0}}
	if err := x.Write(&cmd); err != devices.ErrDisabled {
		t.Fatalf("Write while disabled: %v", err)
	}
	x.Enable(true)
	applied := make(chan wire.Command, 2)
	dev.OnCommand(func(_ uint32, c *wire.Command) { applied <- *c })
	cmd.Torque[1] = math.NaN()
	var te *link.TorqueError
	if err := x.Write(&cmd); !errors.As(err, &te) || te.Joint != 1 {
		t.Fatalf("NaN torque: %v", err)
	}
	cmd.Torque = [3]float64{0.1234564, -1e12, 1e12}
	cmd.Seq = 2
	if err := x.Write(&cmd); err != nil {
		t.Fatal(err)
	}
	first, second := <-applied, <-applied
	dev.OnCommand(nil)
	if first.TorqueUNm != [3]int32{} {
		t.Fatalf("the NaN command was not replaced by zero torque: %+v", first)
	}
	if got := second.TorqueUNm; got != [3]int32{123456, math.MinInt32, math.MaxInt32} || second.Tag != 2 {
		t.Errorf("rounding or saturation: %v", got)
	}
	var st devices.ExoState
	for end := time.Now().Add(2 * time.Second); st.AckSeq != 2 && time.Now().Before(end); time.Sleep(time.Millisecond) {
		x.Read(&st)
	}
	if st.AckSeq != 2 || !st.Enabled {
		t.Errorf("state %+v", st)
	}
}

func TestStaleAndTimeout(t *testing.T) {
	x, dev := dial(t)
	var st devices.ExoState
	for end := time.Now().Add(2 * time.Second); x.Read(&st) != nil || st.Stale; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("no fresh sample")
		}
	}
	seq := st.Seq
	if err := x.Read(&st); err != nil && !errors.Is(err, devices.ErrTimeout) || st.Stale != (st.Seq == seq) {
		t.Fatalf("second Read: %v, stale=%v, seq %d after %d (stale iff no new sample)", err, st.Stale, st.Seq, seq)
	}
	// A sample already on its way when the device went silent may still
	// arrive on a loaded machine: the device must read as timed out and
	// stale soon after, and stay so.
	dev.Detach()
	var err error
	for end := time.Now().Add(time.Second); ; time.Sleep(time.Millisecond) {
		err = x.Read(&st)
		if errors.Is(err, devices.ErrTimeout) && st.Stale || time.Now().After(end) {
			break
		}
	}
	if !errors.Is(err, devices.ErrTimeout) || !st.Stale {
		t.Fatalf("Read of a silent device a second after it went silent: %v stale=%v", err, st.Stale)
	}
	time.Sleep(10 * time.Millisecond)
	if err := x.Read(&st); !errors.Is(err, devices.ErrTimeout) || !st.Stale {
		t.Fatalf("Read of a silent device: %v stale=%v", err, st.Stale)
	}
}

func TestNoAllocs(t *testing.T) {
	x, _ := dial(t)
	x.Enable(true)
	var st devices.ExoState
	cmd := devices.ExoCommand{Torque: [3]float64{0.01, 0, 0}}
	for range 200 { // warm up buffers
		x.Read(&st)
		x.Write(&cmd)
	}
	allocs := testing.AllocsPerRun(2000, func() {
		x.Read(&st)
		cmd.Seq++
		x.Write(&cmd)
	})
	if allocs != 0 {
		t.Errorf("Read+Write allocate %v times per tick", allocs)
	}
}

func TestHandshakeErrors(t *testing.T) {
	t.Run("silent", func(t *testing.T) {
		host, _ := transporttest.Pipe("silent", "nobody")
		_, err := link.DialExo(host, link.Options{HandshakeTimeout: 120 * time.Millisecond})
		var he *link.HandshakeError
		if !errors.As(err, &he) || !strings.Contains(err.Error(), "no answer to HELLO") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		host, dev := transporttest.Pipe("noisy", "modem")
		go func() {
			for range 20 {
				if _, err := dev.Write([]byte("AT+OK\r\n\x00garbage\x00")); err != nil {
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
		_, err := link.DialExo(host, link.Options{HandshakeTimeout: 120 * time.Millisecond})
		if err == nil || !strings.Contains(err.Error(), "corrupt") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("version", func(t *testing.T) {
		host, dev := transporttest.Pipe("v2", "dev")
		go func() { // a device that speaks major version 2: its frames carry version 2
			dev.Read(make([]byte, 256))
			var e wire.Encoder
			dev.Write(versionTwo(e.Encode(&wire.ErrorReport{Code: wire.CodeVersion, Value: 2}, 1, 0)))
		}()
		_, err := link.DialExo(host, link.Options{HandshakeTimeout: 200 * time.Millisecond})
		if err == nil || !strings.Contains(err.Error(), "speaks protocol 2.x") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("invalid caps", func(t *testing.T) {
		host, dev := transporttest.Pipe("bad-firmware", "dev")
		// answers HELLO with a CAPS that leaves frame_period_us at 0
		go serveFake(dev, func(f *wire.Frame, send func(wire.Body)) {
			var h wire.Hello
			if f.Type == wire.TypeHello && h.Parse(f.Body) == nil {
				send(&wire.CapsTactile{Caps: wire.Caps{Major: 1, Kind: wire.KindTactile, Nonce: h.Nonce, PeriodUs: 2000, WatchdogMs: 100}, Rows: 6, Cols: 4})
			}
		})
		_, err := link.DialTactile(host, link.Options{HandshakeTimeout: 150 * time.Millisecond})
		if err == nil || !strings.Contains(err.Error(), "invalid CAPS") || !strings.Contains(err.Error(), "frame_period_us = 0") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("wrong kind", func(t *testing.T) {
		start := time.Now()
		dev := emu.NewTactileDevice(emu.DeviceConfig{Name: "tac"}, emutest.NewPinArray("arr", "1"), func() time.Duration { return time.Since(start) })
		_, err := link.DialExo(pipeDevice(t, dev), link.Options{})
		var ke *link.KindError
		if !errors.As(err, &ke) {
			t.Fatalf("%v", err)
		}
	})
}

func TestProbe(t *testing.T) {
	info, err := link.Probe(pipeDevice(t, newExoDevice()), link.Options{Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if info.Kind != "exoskeleton" || info.Protocol != "1.1" || info.Exo == nil || info.Exo.Model != "m" {
		t.Errorf("%+v", info)
	}
}

// Enable sends ENABLE and returns without waiting for the device (the
// 1 kHz loop calls it; the servo waits for a STATE that reports the stage
// on) and allocates nothing. The device's STATEs then follow it.
func TestEnableDoesNotWait(t *testing.T) {
	x, _ := dial(t)
	var st devices.ExoState
	follow := func(on bool) {
		t.Helper()
		for end := time.Now().Add(5 * time.Second); ; time.Sleep(200 * time.Microsecond) {
			if err := x.Read(&st); err != nil && !errors.Is(err, devices.ErrTimeout) {
				t.Fatal(err)
			}
			if st.Enabled == on {
				return
			}
			if time.Now().After(end) {
				t.Fatalf("no STATE with the stage on = %v within 5 s of Enable(%v)", on, on)
			}
		}
	}
	for range 5 {
		for _, on := range []bool{true, false} {
			if err := x.Enable(on); err != nil {
				t.Fatalf("Enable(%v): %v", on, err)
			}
			follow(on)
		}
	}
	if a := testing.AllocsPerRun(20, func() {
		if err := x.Enable(true); err != nil {
			t.Fatal(err)
		}
		if err := x.Enable(false); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("Enable allocates %v times", a)
	}
}

// A frame above the array's limits comes back clipped in the array's own
// status (TACTILE_STATUS's clamped bit, answering that frame), and the
// next frame within them clears it.
func TestStatusSaysClipped(t *testing.T) {
	start := time.Now()
	dev := emu.NewTactileDevice(emu.DeviceConfig{Name: "tac", WatchdogMs: 2000}, emutest.NewPinArray("arr", "1"), func() time.Duration { return time.Since(start) })
	a, err := link.DialTactile(pipeDevice(t, dev), link.Options{SilenceTimeout: 2 * time.Second, Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	limit := a.Spec().MaxA320Um
	for i, tc := range []struct {
		a320    float64
		clipped bool
	}{{limit, false}, {limit + 1, true}, {limit / 2, false}} {
		f := devices.TactileFrame{Seq: uint32(i + 1)}
		f.A320Um[5] = tc.a320
		if err := a.WriteFrame(&f); err != nil {
			t.Fatal(err)
		}
		var st devices.TactileStatus
		for end := time.Now().Add(2 * time.Second); st.AckSeq != f.Seq && time.Now().Before(end); time.Sleep(time.Millisecond) {
			if err := a.Status(&st); err != nil && !errors.Is(err, devices.ErrTimeout) {
				t.Fatal(err)
			}
		}
		if st.AckSeq != f.Seq || st.Clamped != tc.clipped || !st.Active {
			t.Errorf("%g µm at 320 Hz (limit %g): status %+v, want frame %d acknowledged, clipped %v", tc.a320, limit, st, f.Seq, tc.clipped)
		}
	}
}
