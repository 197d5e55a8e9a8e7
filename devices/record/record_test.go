package record

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/transport/transporttest"
	"github.com/haptex/haptex/devices/wire"
	"github.com/haptex/haptex/internal/safefile"
)

// stubExo is a minimal exoskeleton for the wrappers.
type stubExo struct{ n uint32 }

func (s *stubExo) Spec() devices.ExoSpec { return devices.ExoSpec{Model: "stub", DoF: 3} }
func (s *stubExo) Read(dst *devices.ExoState) error {
	s.n++
	*dst = devices.ExoState{Seq: s.n, Joint: [3]float64{0.1, 1.0 / 3, -2}, Enabled: true}
	if s.n%5 == 0 {
		return devices.ErrTimeout
	}
	return nil
}
func (s *stubExo) Write(*devices.ExoCommand) error { return nil }
func (s *stubExo) Enable(bool) error               { return nil }
func (s *stubExo) Close() error                    { return nil }

func TestRoundTripAndAllocs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.hxr")
	rec, err := createFile(path, Meta{Name: "thumb-exo", Kind: "exoskeleton"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := WrapExo(&stubExo{}, rec)
	var st devices.ExoState
	cmd := devices.ExoCommand{Torque: [3]float64{1e-3, -0.5, 0.25}}
	tick := time.Duration(0)
	allocs := testing.AllocsPerRun(1000, func() {
		tick += time.Millisecond
		x.Advance(tick)
		_ = x.Read(&st)
		cmd.Seq++
		_ = x.Write(&cmd)
	})
	if allocs != 0 {
		t.Errorf("recording a tick allocates %v times", allocs)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	var reads, writes int
	var last ReadEvent
	meta, err := ReadFile(path, func(ev Event) error {
		switch ev.Kind {
		case KindRead:
			reads++
			return last.Parse(ev.Payload)
		case KindWrite:
			writes++
			var w WriteEvent
			if err := w.Parse(ev.Payload); err != nil {
				return err
			}
			if w.Cmd.Torque != cmd.Torque || w.T != time.Duration(writes)*time.Millisecond {
				t.Fatalf("write %d recorded as %+v", writes, w)
			}
		case KindDropped:
			if le.Uint64(ev.Payload) != 0 {
				t.Errorf("dropped %d", le.Uint64(ev.Payload))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if meta.Name != "thumb-exo" || reads != 1001 || writes != 1001 {
		t.Errorf("meta %+v, %d reads, %d writes", meta, reads, writes)
	}
	if last.State.Joint[1] != 1.0/3 || last.Err != ErrNone && last.Err != ErrTimeout {
		t.Errorf("last read %+v", last)
	}
}

// TestDropsAreCounted exhausts the pool: the caller is not blocked, the
// drop is counted and Close reports it.
func TestDropsAreCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.hxr")
	rec, err := createFile(path, Meta{Name: "n", Kind: "exoskeleton"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var held []*chunk
	for range poolSize {
		held = append(held, <-rec.free)
	}
	rec.Bytes(KindRX, []byte{1, 2, 3})
	if rec.Dropped() != 1 {
		t.Fatalf("dropped %d, want 1", rec.Dropped())
	}
	for _, c := range held {
		rec.free <- c
	}
	var de *DroppedError
	if err := rec.Close(); !errors.As(err, &de) || de.Dropped != 1 {
		t.Fatalf("Close = %v, want a DroppedError of 1", err)
	}
}

func TestTruncatedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.hxr")
	rec, _ := createFile(path, Meta{Name: "n", Kind: "tactile"}, Options{})
	for i := range 10 {
		rec.Bytes(KindTX, bytes.Repeat([]byte{byte(i)}, 100))
	}
	rec.Close()
	b, _ := os.ReadFile(path)
	os.WriteFile(path, b[:len(b)-30], 0o644)
	n := 0
	_, err := ReadFile(path, func(Event) error { n++; return nil })
	var te *TruncatedError
	if !errors.As(err, &te) || n != 9 {
		t.Fatalf("truncated file: %d events, %v", n, err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "none"), nil); err == nil {
		t.Error("missing file read")
	}
	os.WriteFile(path, []byte("not a recording at all"), 0o644)
	if _, err := ReadFile(path, nil); err == nil || !strings.Contains(err.Error(), "not a recording") {
		t.Errorf("garbage file: %v", err)
	}
}

// TestConnAndDump records the bytes of a protocol exchange and dumps them
// decoded.
func TestConnAndDump(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.hxr")
	rec, _ := createFile(path, Meta{Name: "thumb-exo", Kind: "exoskeleton"}, Options{})
	host, dev := transporttest.Pipe("host", "dev")
	c := WrapConn(host, rec)
	var e wire.Encoder
	c.Write(e.Encode(&wire.Hello{Major: 1, Nonce: 5}, 1, 0))
	dev.Write(e.Encode(&wire.State{Status: wire.StateEnabled}, 1, 1000))
	dev.Write([]byte{0x05, 0x01, 0x02, 0x03, 0x04, 0x00})
	buf := make([]byte, 256)
	got := 0
	for got < 80 {
		n, _ := c.Read(buf)
		got += n
	}
	c.Close()
	rec.Close()
	var out strings.Builder
	if err := Dump(&out, path); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"OPEN host", "-> HELLO", "<- STATE", "damaged frame", "CLOSE", "0 events dropped"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("dump lacks %q:\n%s", want, out.String())
		}
	}
}

// FuzzReader reads arbitrary files: no panic, and never more memory than
// the fixed buffers whatever the lengths in the file say.
func FuzzReader(f *testing.F) {
	var good bytes.Buffer
	good.Write(Magic[:])
	good.Write([]byte{2, 0, 0, 0, '{', '}'})
	ev := make([]byte, eventHeader+readSize)
	ev[8] = byte(KindRead)
	le.PutUint16(ev[10:], readSize)
	good.Write(ev)
	f.Add(good.Bytes())
	f.Add(append(append([]byte{}, Magic[:]...), 0xFF, 0xFF, 0xFF, 0xFF))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := NewReader(bytes.NewReader(in))
		if err != nil {
			return
		}
		for range 1000 {
			ev, err := r.Next()
			if err != nil {
				return
			}
			if len(ev.Payload) > 1<<16 {
				t.Fatal("payload beyond the 16-bit length")
			}
			var (
				re ReadEvent
				we WriteEvent
				ee EnableEvent
				fe FrameEvent
				se StatusEvent
				de DeliveredEvent
			)
			switch ev.Kind {
			case KindRead:
				_ = re.Parse(ev.Payload)
			case KindWrite:
				_ = we.Parse(ev.Payload)
			case KindEnable:
				_ = ee.Parse(ev.Payload)
			case KindFrame:
				_ = fe.Parse(ev.Payload)
			case KindStatus:
				_ = se.Parse(ev.Payload)
			case KindDelivered:
				_ = de.Parse(ev.Payload)
			}
		}
	})
}

// createFile creates the new file path (its directory too, as given) and
// starts its writer. The file must not exist: a symbolic link at path is
// refused, not followed (safefile.Dir.Create).
func createFile(path string, meta Meta, opt Options) (*Recorder, error) {
	if err := os.MkdirAll(filepath.Dir(path), safefile.DirMode); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	d, name, err := safefile.OpenParent(path)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	defer d.Close()
	return create(d, name, meta, opt)
}
