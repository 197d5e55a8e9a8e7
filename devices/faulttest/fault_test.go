package faulttest_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/emu/emutest"
	"github.com/haptex/haptex/devices/faulttest"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/serial"
	"github.com/haptex/haptex/devices/transport"
	"github.com/haptex/haptex/devices/transport/transporttest"
	"github.com/haptex/haptex/devices/wire"
)

func torque(k uint32) [3]float64 {
	return [3]float64{0.01 * math.Sin(float64(k)/50), 0.02, -0.01 * float64(k%7)}
}

func um(x float64) int32 { return int32(math.Round(x * 1e6)) }

// ledger records what each side sent and acted on.
type ledger struct {
	mu         sync.Mutex
	sentStates map[uint32][]wire.State // by device seq: a HELLO (duplicated, say) restarts the device's seqs
	applied    []uint32                // host seqs of the commands the device acted on
	altered    int                     // applied commands whose content is not what the host sent
	damaged    map[uint32]bool         // host seqs of commands dropped or corrupted on the way out
	events     []faulttest.Event
	dupOut     uint64 // duplicated host frames other than HELLO (which restarts a session whatever its seq)
	stop       atomic.Bool
}

// tap records every STATE the device sent, by its seq, from the bytes the
// port delivers before any fault is injected into them: what the device
// said, for the host's reads to be checked against.
type tap struct {
	transport.Conn
	l   *ledger
	dec wire.Decoder
	st  wire.State
}

func (t *tap) Read(p []byte) (int, error) {
	n, err := t.Conn.Read(p)
	for b := p[:n]; len(b) > 0 && !t.l.stop.Load(); {
		k, f, _ := t.dec.Decode(b)
		b = b[k:]
		if f != nil && f.Type == wire.TypeState && t.st.Parse(f.Body) == nil {
			t.l.mu.Lock()
			t.l.sentStates[f.Seq] = append(t.l.sentStates[f.Seq], t.st)
			t.l.mu.Unlock()
		}
	}
	return n, err
}

func (l *ledger) event(e faulttest.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
	if e.Dir != faulttest.Out {
		return
	}
	var d wire.Decoder
	_, f, err := d.Decode(e.Frame)
	if err != nil || f == nil {
		return
	}
	switch e.Kind {
	case faulttest.Drop, faulttest.Corruption:
		l.damaged[f.Seq] = true
	case faulttest.Duplication:
		if f.Type != wire.TypeHello {
			l.dupOut++
		}
	}
}

// setup starts one emulated exoskeleton and opens it through the serial
// driver with faults on the host's port.
func setup(t *testing.T, out, in faulttest.Config, silence time.Duration) (*link.Exo, *faulttest.Conn, *ledger, *emu.Device) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	em, err := emu.Run(ctx, emu.Config{NewExo: emutest.StandInExo, Devices: []emu.DeviceConfig{{Name: "exo", Kind: wire.KindExo, WatchdogMs: 2000}}})
	if err != nil {
		t.Skipf("emulator: %v", err)
	}
	t.Cleanup(func() { em.Close() })
	dev := em.Plug("exo").Device()
	l := &ledger{sentStates: map[uint32][]wire.State{}, damaged: map[uint32]bool{}}
	dev.OnCommand(func(seq uint32, c *wire.Command) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.applied = append(l.applied, seq)
		w := torque(c.Tag)
		if c.TorqueUNm != [3]int32{um(w[0]), um(w[1]), um(w[2])} {
			l.altered++
		}
	})
	// The write limit is far above a loaded machine's stalls (the tty
	// worker not moving the line's bytes to the device for more than the
	// default): what is under test is what the faults do to the frames.
	port, err := serial.Open(em.Plug("exo").Path(), serial.Options{WriteLimit: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	fc := faulttest.Wrap(&tap{Conn: port, l: l}, out, in, l.event)
	x, err := link.DialExo(fc, link.Options{SilenceTimeout: silence, HandshakeTimeout: 5 * time.Second, Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x, fc, l, dev
}

// drive runs n ticks of Read + Write at about 1 kHz and checks every fresh
// state the host reads against what the device sent under that seq.
func drive(t *testing.T, x *link.Exo, l *ledger, n int) (reads int) {
	t.Helper()
	if err := x.Enable(true); err != nil && !errors.Is(err, devices.ErrTimeout) {
		t.Fatal(err)
	}
	var st devices.ExoState
	next := time.Now()
	for k := 1; k <= n; k++ {
		next = next.Add(time.Millisecond)
		time.Sleep(time.Until(next))
		err := x.Read(&st)
		if err != nil && !errors.Is(err, devices.ErrTimeout) {
			t.Fatalf("tick %d: %v", k, err)
		}
		if !st.Stale && st.Seq != 0 {
			reads++
			l.mu.Lock()
			sent := l.sentStates[st.Seq]
			l.mu.Unlock()
			if !slices.ContainsFunc(sent, func(s wire.State) bool {
				return st.Joint[0] == float64(s.JointURad[0])/1e6 && st.Force[2] == float64(s.ForceUN[2])/1e6 && st.AckSeq == s.AckTag
			}) {
				t.Fatalf("tick %d: host read state seq %d that the device did not send so: %+v vs %+v", k, st.Seq, st, sent)
			}
		}
		cmd := devices.ExoCommand{Seq: uint32(k), Torque: torque(uint32(k))}
		if err := x.Write(&cmd); err != nil {
			t.Fatalf("tick %d: %v", k, err)
		}
	}
	time.Sleep(50 * time.Millisecond)
	return reads
}

// TestLossAndCorruption injects 5% loss and 5% corruption in both
// directions: every corrupt frame must be detected and counted, and none
// may be acted on.
func TestLossAndCorruption(t *testing.T) {
	cfg := faulttest.Config{Loss: 0.05, Corrupt: 0.05, Seed: 7}
	in := cfg
	in.Seed = 8
	x, fc, l, dev := setup(t, cfg, in, 5*time.Second)
	reads := drive(t, x, l, 2000)
	// On a loaded machine the last frames can still be on the line (the
	// kernel's tty worker may wait long for a core): wait until the device
	// has taken every frame that reached the line, a delimiter hit merging
	// two, so that its counts are complete.
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		fs, dec := fc.Stats(), dev.Stats().Decode
		l.mu.Lock()
		var merged uint64
		for _, e := range l.events {
			if e.Dir == faulttest.Out && e.HitsDelimiter() {
				merged++
			}
		}
		l.mu.Unlock()
		if dec.Frames+dec.Empty+dec.Corrupt() >= fs.Frames[faulttest.Out]-fs.Dropped[faulttest.Out]-merged {
			break
		}
	}
	l.stop.Store(true) // the device's hook and the tap take l.mu: none may run while the test holds it
	dev.OnCommand(nil)
	fs, ds, hs := fc.Stats(), dev.Stats(), x.Stats()

	l.mu.Lock()
	defer l.mu.Unlock()
	for _, seq := range l.applied {
		if l.damaged[seq] {
			t.Errorf("the device acted on command seq %d, which was dropped or corrupted on the way", seq)
		}
	}
	if l.altered != 0 {
		t.Errorf("the device acted on %d commands whose content differs from what was sent", l.altered)
	}
	var hits [2]uint64
	for _, e := range l.events {
		if e.HitsDelimiter() {
			hits[e.Dir]++
		}
	}
	// A flipped bit inside a frame makes that frame fail; a flipped
	// delimiter merges two frames into one failure.
	if got, min := ds.Decode.Corrupt(), fs.Corrupted[faulttest.Out]-hits[faulttest.Out]; got < min || got == 0 {
		t.Errorf("device detected %d corrupt frames, %d were corrupted (%d at the delimiter)", got, fs.Corrupted[faulttest.Out], hits[faulttest.Out])
	}
	if got, min := hs.Decode.Corrupt(), fs.Corrupted[faulttest.In]-hits[faulttest.In]; got < min || got == 0 {
		t.Errorf("host detected %d corrupt frames, %d were corrupted (%d at the delimiter)", got, fs.Corrupted[faulttest.In], hits[faulttest.In])
	}
	if hs.SeqLost == 0 || ds.SeqLost == 0 {
		t.Errorf("sequence gaps not counted: host %d, device %d", hs.SeqLost, ds.SeqLost)
	}
	// Fresh reads depend on the machine's timing (a stalled loop catches
	// up without waiting for answers); applied commands do not.
	if len(l.applied) < 1500 || reads == 0 {
		t.Errorf("the link stopped working: %d commands applied, %d fresh reads", len(l.applied), reads)
	}
	t.Logf("out: %d frames, %d dropped, %d corrupted (%d delimiters); device counted %d corrupt, %d lost; applied %d",
		fs.Frames[faulttest.Out], fs.Dropped[faulttest.Out], fs.Corrupted[faulttest.Out], hits[faulttest.Out], ds.Decode.Corrupt(), ds.SeqLost, len(l.applied))
	t.Logf("in: %d frames, %d dropped, %d corrupted (%d delimiters); host counted %d corrupt, %d lost; %d fresh reads checked",
		fs.Frames[faulttest.In], fs.Dropped[faulttest.In], fs.Corrupted[faulttest.In], hits[faulttest.In], hs.Decode.Corrupt(), hs.SeqLost, reads)
}

// TestDuplicationAndReordering: duplicated or late frames are counted and
// never acted on twice or out of order.
func TestDuplicationAndReordering(t *testing.T) {
	cfg := faulttest.Config{Duplicate: 0.05, Reorder: 0.05, Latency: 200 * time.Microsecond, Jitter: 300 * time.Microsecond, Seed: 3}
	in := cfg
	in.Seed = 4
	x, fc, l, dev := setup(t, cfg, in, 5*time.Second)
	drive(t, x, l, 1000)
	l.stop.Store(true)
	dev.OnCommand(nil)
	fs, ds, hs := fc.Stats(), dev.Stats(), x.Stats()
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := 1; i < len(l.applied); i++ {
		if !wire.SeqAfter(l.applied[i], l.applied[i-1]) {
			t.Fatalf("command seq %d acted on after seq %d", l.applied[i], l.applied[i-1])
		}
	}
	if ds.SeqDropped == 0 || hs.SeqDropped == 0 {
		t.Errorf("duplicates and late frames not counted: device %d, host %d", ds.SeqDropped, hs.SeqDropped)
	}
	// Every duplicate that reached the device was dropped. On a loaded
	// machine the pseudo-terminal may refuse a frame whole (the device
	// not reading): such a frame never arrives and cannot be dropped.
	sent := fs.Frames[faulttest.Out] + fs.Duplicated[faulttest.Out] - fs.Dropped[faulttest.Out]
	d := ds.Decode
	arrived := d.Frames + d.Framing + d.Short + d.CRC + d.Version + d.Length
	lost := uint64(0)
	if sent > arrived {
		lost = sent - arrived
	}
	if ds.SeqDropped+lost < l.dupOut {
		t.Errorf("device dropped %d duplicate/late frames, %d never arrived; %d duplicates (HELLO aside) were injected", ds.SeqDropped, lost, l.dupOut)
	}
	t.Logf("out: %d duplicated, %d reordered; device dropped %d. in: %d duplicated, %d reordered; host dropped %d",
		fs.Duplicated[faulttest.Out], fs.Reordered[faulttest.Out], ds.SeqDropped, fs.Duplicated[faulttest.In], fs.Reordered[faulttest.In], hs.SeqDropped)
}

// TestMuteDeviceIsLost: a device that stays attached but falls silent is
// reported stale at once and lost after the silence limit.
func TestMuteDeviceIsLost(t *testing.T) {
	x, _, _, dev := setup(t, faulttest.Config{}, faulttest.Config{}, 0)
	var st devices.ExoState
	// A fresh sample first: on a loaded machine the first can take longer
	// than any fixed pause (at load 19 it had not come after 20 ms).
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		err := x.Read(&st)
		if err == nil {
			break
		}
		if !errors.Is(err, devices.ErrTimeout) || time.Since(start) > 10*time.Second {
			t.Fatal(err)
		}
	}
	dev.Detach() // the device stops talking; its port stays open
	var sawTimeout bool
	start := time.Now()
	for time.Since(start) < 10*time.Second {
		err := x.Read(&st)
		if errors.Is(err, devices.ErrTimeout) {
			sawTimeout = true
		}
		if errors.Is(err, devices.ErrDisconnected) {
			if !sawTimeout {
				t.Error("lost without first reporting a stale sample")
			}
			var le *link.LostError
			var se *link.SilenceError
			if !errors.As(err, &le) || !errors.As(err, &se) {
				t.Errorf("loss error %v does not say it was silence", err)
			}
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("a mute device was never declared lost")
}

// limitRecorder is a port that notes the write limit it was given.
type limitRecorder struct {
	transport.Conn
	limit time.Duration
}

func (l *limitRecorder) SetWriteLimit(d time.Duration) { l.limit = d }

// A link's write limit (link.Options.WriteLimit) reaches the port behind
// the injector, so a device that stops reading stalls the writer no
// longer there than on the port itself.
func TestWriteLimitReachesThePort(t *testing.T) {
	host, dev := transporttest.Pipe("host", "device")
	defer dev.Close()
	port := &limitRecorder{Conn: host}
	c := faulttest.Wrap(port, faulttest.Config{}, faulttest.Config{}, nil)
	defer c.Close()
	var wl transport.WriteLimiter = c
	wl.SetWriteLimit(7 * time.Millisecond)
	if port.limit != 7*time.Millisecond {
		t.Fatalf("the port's write limit is %v, want 7ms", port.limit)
	}
}
