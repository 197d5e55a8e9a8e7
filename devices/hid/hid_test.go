package hid_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	khid "github.com/karalabe/hid"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/devicetest"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/emu/emutest"
	"github.com/haptex/haptex/devices/hid"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/transport"
	"github.com/haptex/haptex/devices/transport/transporttest"
	"github.com/haptex/haptex/devices/wire"
)

// fakeHID is a hid.Device that speaks the protocol: an emulated device
// behind 64-byte reports, as firmware would put it on its endpoints.
type fakeHID struct {
	host    transport.Conn
	reports chan []byte // IN reports waiting for the host
	free    chan []byte // report buffers, so that the fake allocates nothing per report
	timer   *time.Timer // ReadTimeout's, reused (one reader)
	gone    atomic.Bool
	writes  atomic.Uint64
}

var _ khid.Device = (*fakeHID)(nil)

var errGone = errors.New("hidapi: LIBUSB_ERROR_NO_DEVICE")

func newFake(t *testing.T, dev *emu.Device) *fakeHID {
	host, devEnd := transporttest.Pipe("fake-hid", "emu")
	emutest.Serve(dev, devEnd)
	f := &fakeHID{host: host, reports: make(chan []byte, 4096), free: make(chan []byte, 4096), timer: time.NewTimer(time.Hour)}
	for range 4096 {
		f.free <- make([]byte, wire.HIDReportSize)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); host.Close() })
	go func() { // the device's IN endpoint: whatever bytes are ready, up to 63 per report
		buf := make([]byte, 4096)
		for {
			n, err := host.Read(buf)
			if err != nil {
				return
			}
			for p := buf[:n]; len(p) > 0; {
				r := <-f.free
				p = p[wire.PutReport(r[:wire.HIDReportSize], p):]
				f.reports <- r[:wire.HIDReportSize]
			}
		}
	}()
	start := time.Now()
	go func() { // the device's own timer
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
	return f
}

func (f *fakeHID) Close() error { return nil }

// Write takes one OUT report: report id 0, then 64 bytes.
func (f *fakeHID) Write(b []byte) (int, error) {
	if f.gone.Load() {
		return 0, errGone
	}
	if len(b) != wire.HIDReportSize+1 || b[0] != 0 {
		return 0, errors.New("fake: want report id 0 and a 64-byte report")
	}
	data, err := wire.ReportData(b[1:])
	if err != nil {
		return 0, err
	}
	f.writes.Add(1)
	_, err = f.host.Write(data)
	return len(b), err
}

func (f *fakeHID) Read(b []byte) (int, error) { return f.ReadTimeout(b, -1) }

func (f *fakeHID) ReadTimeout(b []byte, ms int) (int, error) {
	if f.gone.Load() {
		return 0, errGone
	}
	var timeout <-chan time.Time
	if ms >= 0 {
		f.timer.Reset(time.Duration(ms) * time.Millisecond)
		defer f.timer.Stop()
		timeout = f.timer.C
	}
	select {
	case r := <-f.reports:
		n := copy(b, r)
		if cap(r) >= wire.HIDReportSize { // not one the test injected
			f.free <- r
		}
		return n, nil
	case <-timeout:
		if f.gone.Load() {
			return 0, errGone
		}
		return 0, nil
	}
}

func (f *fakeHID) GetFeatureReport([]byte) (int, error) {
	return 0, errors.New("fake: no feature reports")
}
func (f *fakeHID) SendFeatureReport([]byte) (int, error) {
	return 0, errors.New("fake: no feature reports")
}

func exoDevice() *emu.Device {
	start := time.Now()
	return emu.NewExoDevice(emu.DeviceConfig{Name: "hid-exo", WatchdogMs: 10_000},
		emutest.NewMassDamperExo("haptex-hid-exo", "HID-1"), func() time.Duration { return time.Since(start) })
}

func TestExoOverHID(t *testing.T) {
	dev := exoDevice()
	f := newFake(t, dev)
	conn := hid.New(f, "hid 1209:4858 HID-1")
	x, err := link.DialExo(conn, link.Options{Transport: devices.TransportHID, SilenceTimeout: 10 * time.Second, WriteLimit: 10 * time.Second, Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if sp := x.Spec(); sp.Serial != "HID-1" || sp.Transport != devices.TransportHID {
		t.Fatalf("spec %+v", sp)
	}
	// Malformed and short reports from the device side are discarded or
	// accepted by their count, never misread.
	f.reports <- []byte{70, 1, 2, 3}
	f.reports <- []byte{0}
	x.Enable(true)
	var st devices.ExoState
	cmd := devices.ExoCommand{Torque: [3]float64{0.02, -0.02, 0}}
	for i := 1; i <= 500; i++ {
		cmd.Seq = uint32(i)
		if err := x.Write(&cmd); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
		if err := x.Read(&st); err != nil && !errors.Is(err, devices.ErrTimeout) {
			t.Fatal(err)
		}
	}
	for end := time.Now().Add(2 * time.Second); st.AckSeq != 500 && time.Now().Before(end); time.Sleep(time.Millisecond) {
		x.Read(&st)
	}
	s := x.Stats()
	if st.AckSeq != 500 || s.Decode.Corrupt() != 0 || s.SeqLost != 0 || conn.BadReports() != 1 {
		t.Errorf("ack %d, stats %+v, bad reports %d", st.AckSeq, s, conn.BadReports())
	}
	if ds := dev.Stats(); ds.Accepted < 501 || ds.Decode.Corrupt() != 0 {
		t.Errorf("device %+v", ds)
	}
	t.Logf("%d OUT reports for 502 frames; command-to-state latency %+v", f.writes.Load(), s.CommandLatency)

	f.gone.Store(true) // unplugged
	deadline := time.Now().Add(time.Second)
	for !errors.Is(x.Read(&st), devices.ErrDisconnected) {
		if time.Now().After(deadline) {
			t.Fatal("unplugged HID device not reported")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestCloseUnblocksRead(t *testing.T) {
	f := newFake(t, exoDevice())
	c := hid.New(f, "fake")
	done := make(chan error)
	go func() {
		_, err := c.Read(make([]byte, 64))
		done <- err
	}()
	time.Sleep(30 * time.Millisecond)
	c.Close()
	select {
	case err := <-done:
		if transport.KindOf(err) != transport.Closed {
			t.Errorf("Read after Close: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close did not stop Read")
	}
}

func TestOpenMissing(t *testing.T) {
	_, err := hid.Open(0x1209, 0xFFFE, "nope")
	if k := transport.KindOf(err); k != transport.NotFound && k != transport.Unsupported {
		t.Fatalf("Open of an absent device: %v", err)
	}
	t.Log(err)
}

func TestConformance(t *testing.T) {
	f := newFake(t, exoDevice())
	x, err := link.DialExo(hid.New(f, "fake"), link.Options{Transport: devices.TransportHID, SilenceTimeout: 10 * time.Second, WriteLimit: 10 * time.Second, Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	devicetest.Exoskeleton(t, x, devicetest.Options{Responds: true})
}

// slowHID is a hid.Device whose OUT endpoint takes a report only when the
// test lets it (gate), as a device that stopped reading makes hidapi's
// write wait; fail makes its writes fail instead.
type slowHID struct {
	gate   chan struct{}
	fail   atomic.Bool
	writes atomic.Int32
}

func (s *slowHID) Write(b []byte) (int, error) {
	<-s.gate
	if s.fail.Load() {
		return 0, errGone
	}
	s.writes.Add(1)
	return len(b), nil
}
func (s *slowHID) Close() error               { return nil }
func (s *slowHID) Read(b []byte) (int, error) { return s.ReadTimeout(b, -1) }
func (s *slowHID) ReadTimeout(b []byte, ms int) (int, error) {
	time.Sleep(time.Millisecond)
	return 0, nil
}
func (s *slowHID) GetFeatureReport([]byte) (int, error)  { return 0, errors.New("none") }
func (s *slowHID) SendFeatureReport([]byte) (int, error) { return 0, errors.New("none") }

// TestWriteQueues: Write returns without waiting for the transfer; with a
// device that takes no report it queues QueueReports (plus the one in
// flight) and then fails with kind Stalled after the write limit instead
// of holding the caller; Close sends what is still queued.
func TestWriteQueues(t *testing.T) {
	s := &slowHID{gate: make(chan struct{})}
	c := hid.New(s, "slow")
	c.SetWriteLimit(20 * time.Millisecond)
	frame := []byte{1, 2, 3}
	var err error
	var queued int
	var slowest time.Duration
	for queued = 0; queued < 10*hid.QueueReports; queued++ {
		t0 := time.Now()
		_, err = c.Write(frame)
		slowest = max(slowest, time.Since(t0))
		if err != nil {
			break
		}
	}
	if transport.KindOf(err) != transport.Stalled {
		t.Fatalf("after %d frames the device did not take: %v, want kind Stalled", queued, err)
	}
	if queued < hid.QueueReports || queued > hid.QueueReports+1 {
		t.Errorf("%d frames queued before the stall, want %d or %d", queued, hid.QueueReports, hid.QueueReports+1)
	}
	// 10 s: far beyond the 20 ms limit plus a loaded CI host's stalls,
	// far short of the forever a device that never reads would hold it.
	if slowest > 10*time.Second {
		t.Errorf("a Write took %v with a 20 ms limit", slowest)
	}
	t.Logf("stalled after %d frames, slowest Write %v: %v", queued, slowest, err)
	close(s.gate) // the device reads again
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := int(s.writes.Load()); n != queued {
		t.Errorf("the device got %d of the %d queued reports by Close", n, queued)
	}
	if _, err := c.Write(frame); transport.KindOf(err) != transport.Closed {
		t.Errorf("Write after Close: %v, want kind Closed", err)
	}
}

// TestWriteFailure: a report hidapi could not send fails a later Write
// with kind Gone.
func TestWriteFailure(t *testing.T) {
	s := &slowHID{gate: make(chan struct{})}
	close(s.gate)
	s.fail.Store(true)
	c := hid.New(s, "failing")
	defer c.Close()
	var err error
	for end := time.Now().Add(10 * time.Second); err == nil && time.Now().Before(end); {
		_, err = c.Write([]byte{1})
		time.Sleep(time.Millisecond)
	}
	if !errors.Is(err, devices.ErrDisconnected) || transport.KindOf(err) != transport.Gone {
		t.Fatalf("Write after a failed report: %v, want kind Gone", err)
	}
}

func TestWriteAllocs(t *testing.T) {
	s := &slowHID{gate: make(chan struct{})}
	close(s.gate)
	c := hid.New(s, "fast")
	defer c.Close()
	c.SetWriteLimit(10 * time.Second) // a loaded host may leave the writer goroutine waiting
	frame := make([]byte, 100)        // two reports
	best := -1.0
	for range 3 { // AllocsPerRun counts the whole process
		a := testing.AllocsPerRun(200, func() {
			if _, err := c.Write(frame); err != nil {
				panic(err)
			}
		})
		if best < 0 || a < best {
			best = a
		}
	}
	if best != 0 {
		t.Errorf("%v allocations per Write", best)
	}
}
