package emu_test

import (
	"testing"
	"time"

	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/emu/emutest"
	"github.com/haptex/haptex/devices/transport"
	"github.com/haptex/haptex/devices/transport/transporttest"
	"github.com/haptex/haptex/devices/wire"
)

// host is the other end of an emulated device's line, driven by hand:
// every frame the device sends is decoded in order.
type host struct {
	t      *testing.T
	conn   transport.Conn
	dev    *emu.Device
	now    time.Duration
	seq    uint32
	enc    wire.Encoder
	frames chan wire.Frame
	got    []wire.Frame
	errs   []wire.ErrorReport
}

func newHost(t *testing.T) *host {
	return newHostOf(t, func(clock func() time.Duration) *emu.Device {
		return emu.NewExoDevice(emu.DeviceConfig{Name: "exo", WatchdogMs: 20}, emutest.NewMassDamperExo("m", "s"), clock)
	})
}

// newHostOf is newHost for the device dev returns, on the host's clock.
func newHostOf(t *testing.T, dev func(clock func() time.Duration) *emu.Device) *host {
	h, d := transporttest.Pipe("host", "dev")
	t.Cleanup(func() { h.Close(); d.Close() })
	hh := &host{t: t, conn: h, frames: make(chan wire.Frame, 256)}
	hh.dev = dev(func() time.Duration { return hh.now })
	emutest.Serve(hh.dev, d)
	go func() {
		var dec wire.Decoder
		var buf [4096]byte
		for {
			n, err := h.Read(buf[:])
			if err != nil {
				return
			}
			for p := buf[:n]; len(p) > 0; {
				k, f, _ := dec.Decode(p)
				p = p[k:]
				if f != nil {
					fr := *f
					fr.Body = append([]byte(nil), f.Body...)
					hh.frames <- fr
				}
			}
		}
	}()
	return hh
}

// send writes one host frame and collects what the device answers.
func (h *host) send(b wire.Body) {
	h.seq++
	if _, err := h.conn.Write(h.enc.Encode(b, h.seq, 0)); err != nil {
		h.t.Fatal(err)
	}
	h.collect()
}

// collect takes what the device sent until it has been quiet for 20 ms.
func (h *host) collect() {
	for {
		select {
		case f := <-h.frames:
			h.got = append(h.got, f)
			var e wire.ErrorReport
			if f.Type == wire.TypeError && e.Parse(f.Body) == nil {
				h.errs = append(h.errs, e)
			}
		case <-time.After(20 * time.Millisecond):
			return
		}
	}
}

func (h *host) lastState() wire.State {
	for i := len(h.got) - 1; i >= 0; i-- {
		var s wire.State
		if h.got[i].Type == wire.TypeState && s.Parse(h.got[i].Body) == nil {
			return s
		}
	}
	h.t.Fatal("no STATE")
	return wire.State{}
}

func (h *host) lastError() wire.ErrorCode {
	if len(h.errs) == 0 {
		return 0
	}
	return h.errs[len(h.errs)-1].Code
}

// The exoskeleton's states of docs/protocol.md section 6.3: out of
// session only HELLO counts (ERROR 8, seq 0); ENABLE 1 switches the
// stage on, ENABLE 0 off at once; a fault cuts it and latches until a
// HELLO after its condition has gone; ENABLE 1 is refused while a bit is
// set; the held command is forgotten when the stage goes off; the watchdog
// trips only while enabled.
func TestExoStates(t *testing.T) {
	h := newHost(t)
	h.send(&wire.Enable{On: 1})
	if h.lastError() != wire.CodeNotReady || h.got[len(h.got)-1].Seq != 0 {
		t.Fatalf("out of session: %+v", h.got)
	}
	h.send(&wire.Hello{Major: wire.Major, Nonce: 7})
	if len(h.got) < 2 || h.got[1].Type != wire.TypeCapsExo || h.got[1].Seq != 1 {
		t.Fatalf("no CAPS with seq 1: %+v", h.got)
	}
	h.send(&wire.Enable{On: 1})
	if s := h.lastState(); s.Status&wire.StateEnabled == 0 {
		t.Fatalf("ENABLE 1: %+v", s)
	}
	h.send(&wire.Command{TorqueUNm: [3]int32{100_000, 0, 0}, Tag: 1})
	if s := h.lastState(); s.TorqueUNm[0] != 100_000 || s.AckTag != 1 {
		t.Fatalf("COMMAND: %+v", s)
	}
	h.send(&wire.Enable{On: 0})
	h.send(&wire.Enable{On: 1})
	if s := h.lastState(); s.Status&wire.StateEnabled == 0 || s.TorqueUNm != [3]int32{} {
		t.Fatalf("the held command came back after ENABLE 0, ENABLE 1: %+v", s)
	}
	h.dev.SetCondition(wire.FaultEStop)
	h.now += 2 * time.Millisecond // a period: the device sends a STATE on its own
	h.dev.Tick(h.now)
	h.collect()
	if s := h.lastState(); s.Status&wire.StateEnabled != 0 || s.Fault != wire.FaultEStop {
		t.Fatalf("a fault did not cut the stage: %+v", s)
	}
	h.dev.SetCondition(0)
	h.send(&wire.Enable{On: 1})
	if s := h.lastState(); h.lastError() != wire.CodeEnableRefused || s.Status&wire.StateEnabled != 0 || s.Fault != wire.FaultEStop {
		t.Fatalf("ENABLE 1 with a latched fault: error %v, %+v", h.lastError(), s)
	}
	h.send(&wire.Hello{Major: wire.Major, Nonce: 8})
	h.send(&wire.Enable{On: 1})
	if s := h.lastState(); s.Fault != 0 || s.Status&wire.StateEnabled == 0 {
		t.Fatalf("the fault outlived HELLO after its condition went: %+v", s)
	}
	// The watchdog: 20 ms of silence while enabled.
	h.now += 25 * time.Millisecond
	h.dev.Tick(h.now)
	h.now += 2 * time.Millisecond
	h.dev.Tick(h.now)
	h.collect()
	if s := h.lastState(); h.lastError() != wire.CodeWatchdog || s.Status&wire.StateEnabled != 0 || s.Status&wire.StateWatchdog == 0 {
		t.Fatalf("watchdog: error %v, %+v", h.lastError(), s)
	}
	h.send(&wire.Enable{On: 0})
	n := len(h.errs)
	h.now += 25 * time.Millisecond
	h.dev.Tick(h.now)
	h.collect()
	if len(h.errs) != n {
		t.Errorf("the watchdog tripped while disabled: %+v", h.errs[n:])
	}
}

// An exoskeleton detached from its host while enabled (an unplugged
// cable) still keeps its watchdog's promise: the power stage goes off
// watchdog_ms after the host's last frame, with nobody to tell. Before,
// it stayed on with its last torque until the next HELLO.
func TestDetachedExoWatchdog(t *testing.T) {
	h := newHost(t)
	var offAt time.Duration
	var cause string
	h.dev.OnPower(func(on bool, c string) {
		if !on && offAt == 0 {
			offAt, cause = h.now, c
		}
	})
	h.send(&wire.Hello{Major: wire.Major, Nonce: 1})
	h.send(&wire.Enable{On: 1})
	h.send(&wire.Command{TorqueUNm: [3]int32{100_000, 0, 0}, Tag: 1})
	if s := h.lastState(); s.Status&wire.StateEnabled == 0 {
		t.Fatalf("ENABLE 1: %+v", s)
	}
	last := h.now // the host's last frame
	h.dev.Detach()
	for h.now < last+100*time.Millisecond {
		h.now += time.Millisecond
		h.dev.Tick(h.now)
	}
	if offAt == 0 || cause != "watchdog" || offAt > last+21*time.Millisecond {
		t.Fatalf("detached: the stage went off at %v after the host's last frame (cause %q), want within the 20 ms watchdog (+1 ms tick)", offAt-last, cause)
	}
}
