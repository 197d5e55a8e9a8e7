package wire

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var writeSeeds = flag.Bool("seeds", false, "rewrite the seed corpus under testdata/fuzz")

// FuzzDecoder feeds arbitrary bytes, in arbitrary chunks, to the stream
// decoder. A frame it accepts must re-encode to the bytes that carried it,
// and decoding must not allocate whatever the input claims.
func FuzzDecoder(f *testing.F) {
	var e Encoder
	f.Add(append([]byte(nil), e.Encode(&State{Status: 1}, 1, 2)...), uint8(7))
	f.Add([]byte{0, 1, 2, 0, 255, 0}, uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8) {
		step := int(chunk%64) + 1
		var d Decoder
		var re Encoder
		allocs := testing.AllocsPerRun(1, func() {
			for p := in; len(p) > 0; {
				c := p[:min(step, len(p))]
				p = p[len(c):]
				for len(c) > 0 {
					n, fr, err := d.Decode(c)
					if n <= 0 || n > len(c) {
						panic("Decode consumed no bytes")
					}
					c = c[n:]
					if fr != nil && err != nil {
						panic("frame and error together")
					}
					if fr != nil {
						if int(fr.BodyLen) != len(fr.Body) || len(fr.Body) > MaxBody {
							panic("bad body length")
						}
						out := re.EncodeRaw(fr.Type, fr.Body, fr.Seq, fr.TimeUs)
						if bytes.IndexByte(out[:len(out)-1], 0) >= 0 {
							panic("re-encoded frame holds a zero")
						}
					}
				}
			}
		})
		if allocs != 0 {
			t.Fatalf("Decode allocated %v times", allocs)
		}
		if d.Stats.Frames > uint64(len(in)) {
			t.Fatalf("more frames than bytes")
		}
	})
}

// fuzzBody checks one message parser: arbitrary bodies never panic, the
// parser allocates a bounded number of times, and whatever it accepts
// survives Put and Parse unchanged.
func fuzzBody[M interface {
	Body
	Parse([]byte) error
}](f *testing.F, newMsg func() M) {
	lay := LayoutOf(newMsg().MsgType())
	f.Add(make([]byte, lay.Size()))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		m := newMsg()
		var err error
		allocs := testing.AllocsPerRun(1, func() { err = m.Parse(body) })
		// A rejected body costs its error value, a constant: nothing here
		// may grow with the input.
		if allocs > 8 {
			t.Fatalf("Parse allocated %v times", allocs)
		}
		if err != nil {
			if len(body) >= m.Size() {
				if _, ok := err.(*ParseError); !ok {
					t.Fatalf("Parse error %T %v", err, err)
				}
			}
			return
		}
		if len(body) < m.Size() {
			t.Fatalf("Parse accepted %d bytes, layout needs %d", len(body), m.Size())
		}
		out := make([]byte, m.Size())
		m.Put(out)
		m2 := newMsg()
		if err := m2.Parse(out); err != nil {
			t.Fatalf("Parse(Put(Parse(b))): %v", err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip changed %+v into %+v", m, m2)
		}
		in := append([]byte(nil), body[:m.Size()]...)
		for _, fld := range lay.Fields {
			if fld.Go == "" {
				clear(in[fld.Off : fld.Off+fld.Size()])
			}
		}
		if !bytes.Equal(out, in) {
			t.Fatalf("Put(Parse(b)) differs from b outside reserved fields")
		}
	})
}

func FuzzHello(f *testing.F)        { fuzzBody(f, func() *Hello { return new(Hello) }) }
func FuzzCapsExo(f *testing.F)      { fuzzBody(f, func() *CapsExo { return new(CapsExo) }) }
func FuzzCapsTactile(f *testing.F)  { fuzzBody(f, func() *CapsTactile { return new(CapsTactile) }) }
func FuzzState(f *testing.F)        { fuzzBody(f, func() *State { return new(State) }) }
func FuzzCommand(f *testing.F)      { fuzzBody(f, func() *Command { return new(Command) }) }
func FuzzEnable(f *testing.F)       { fuzzBody(f, func() *Enable { return new(Enable) }) }
func FuzzTactileFrame(f *testing.F) { fuzzBody(f, func() *TactileFrame { return new(TactileFrame) }) }
func FuzzTactileStatus(f *testing.F) {
	fuzzBody(f, func() *TactileStatus { return new(TactileStatus) })
}
func FuzzTactileMeasured(f *testing.F) {
	fuzzBody(f, func() *TactileMeasured { return new(TactileMeasured) })
}
func FuzzHeartbeat(f *testing.F)   { fuzzBody(f, func() *Heartbeat { return new(Heartbeat) }) }
func FuzzErrorReport(f *testing.F) { fuzzBody(f, func() *ErrorReport { return new(ErrorReport) }) }

// FuzzReport checks the HID report unpacker.
func FuzzReport(f *testing.F) {
	r := make([]byte, HIDReportSize)
	PutReport(r, []byte{1, 2, 3, 0})
	f.Add(r)
	f.Add([]byte{63})
	f.Fuzz(func(t *testing.T, report []byte) {
		b, err := ReportData(report)
		if err != nil {
			return
		}
		if len(b) > HIDPayload || len(b) != int(report[0]) {
			t.Fatalf("ReportData returned %d bytes for count %d", len(b), report[0])
		}
		out := make([]byte, HIDReportSize)
		if n := PutReport(out, b); n != len(b) || !bytes.Equal(out[1:1+n], b) {
			t.Fatal("PutReport(ReportData(r)) differs")
		}
	})
}

// seedBodies are valid bodies of every message, the seed corpus the fuzz
// targets start from (written under testdata/fuzz by -seeds).
func seedBodies() map[string][][]byte {
	put := func(b Body) []byte {
		out := make([]byte, b.Size())
		b.Put(out)
		return out
	}
	ce := &CapsExo{Caps: Caps{Major: 1, Kind: KindExo, Nonce: 5, PeriodUs: 1000, WatchdogMs: 50, Firmware: 0x010203},
		DoF: 3, JointMinURad: [3]int32{-1, -2, -3}, JointMaxURad: [3]int32{1, 2, 3}, MaxForceContMN: 5000, MaxForcePeakMN: 10000}
	SetText(ce.Model[:], "haptex-emu-exo")
	SetText(ce.Serial[:], "EMU-0001")
	ct := &CapsTactile{Caps: Caps{Major: 1, Kind: KindTactile, PeriodUs: 2000, WatchdogMs: 100}, Rows: 6, Cols: 4, PitchUm: 2000,
		MaxA40Nm: 300000, MaxA320Nm: 50000, FramePeriodUs: 25000, Measures: 1}
	badKind := put(ce)
	badKind[2] = 2
	var e Encoder
	stream := func(bs ...Body) []byte {
		var s []byte
		for i, b := range bs {
			s = append(s, e.Encode(b, uint32(i+1), uint64(1000*i))...)
		}
		return s
	}
	return map[string][][]byte{
		"FuzzHello":           {put(&Hello{Major: 1, Nonce: 0x12345678}), put(&Hello{Major: 9})},
		"FuzzCapsExo":         {put(ce), badKind},
		"FuzzCapsTactile":     {put(ct), append(put(ct), 1, 2, 3)},
		"FuzzState":           {put(&State{JointURad: [3]int32{500000, 250000, -100000}, Status: StateEnabled, AckSeq: 2})},
		"FuzzCommand":         {put(&Command{TorqueUNm: [3]int32{10000, -20000, 0}, Tag: 7})},
		"FuzzEnable":          {put(&Enable{On: 1}), {2, 0, 0, 0}},
		"FuzzTactileFrame":    {put(&TactileFrame{A40Nm: [Pins]uint32{1: 4000}, Tag: 1})},
		"FuzzTactileStatus":   {put(&TactileStatus{Status: TactileActive, AckSeq: 3})},
		"FuzzTactileMeasured": {put(&TactileMeasured{A40Nm: [Pins]uint32{2: 3900}, A320Nm: [Pins]uint32{5: 29000}, AckSeq: 4, AckTag: 2})},
		"FuzzHeartbeat":       {{}, {1, 2, 3}},
		"FuzzErrorReport":     {put(&ErrorReport{Code: CodeCRC, Value: 3})},
		"FuzzReport":          {{3, 0x02, 0x30, 0x00}, append([]byte{63}, bytes.Repeat([]byte{1}, 63)...)},
		"FuzzDecoder": {
			stream(ce, &State{Status: 1}, &Command{}, &Heartbeat{}),
			append(stream(&Hello{Major: 1}), bytes.Repeat([]byte{0x55}, 300)...),
			{0, 0, 0x05, 0x10, 0x01, 0x00},
		},
	}
}

// TestWriteSeeds writes the seed corpus (go test ./devices/wire -run
// TestWriteSeeds -seeds); the seeds then run with every go test.
func TestWriteSeeds(t *testing.T) {
	if !*writeSeeds {
		t.Skip("run with -seeds to rewrite testdata/fuzz")
	}
	for name, bodies := range seedBodies() {
		dir := filepath.Join("testdata", "fuzz", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, b := range bodies {
			content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
			if name == "FuzzDecoder" {
				content += "byte('\\x05')\n"
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%d", i)), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
