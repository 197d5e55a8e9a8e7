package wire

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
)

// pyVectors reads testdata/vectors.txt (made by vectors.py from zlib and a
// COBS encoder written from the paper).
func pyVectors(t *testing.T) map[string][]byte {
	t.Helper()
	f, err := os.Open("testdata/vectors.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]byte{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, hx, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		b, err := hex.DecodeString(hx)
		if err != nil {
			t.Fatalf("vector %s: %v", name, err)
		}
		out[name] = b
	}
	return out
}

func TestVectorsFromPython(t *testing.T) {
	vec := pyVectors(t)
	var a40, a320 [Pins]uint32
	for i := range a40 {
		a40[i] = uint32(1000 * (i + 1))
		a320[i] = uint32(1000 * (i + 25))
	}
	tests := []struct {
		name   string
		body   Body
		seq    uint32
		timeUs uint64
	}{
		{"hello", &Hello{Major: 1, Nonce: 0x12345678}, 1, 0},
		{"command", &Command{TorqueUNm: [3]int32{10000, -20000, 0}, Tag: 7}, 2, 1500},
		{"state", &State{JointURad: [3]int32{500000, 250000, -100000}, ForceUN: [3]int32{0, 0, 1500000},
			TorqueUNm: [3]int32{10000, -20000, 0}, Status: StateEnabled, AckSeq: 2, AckTag: 7}, 9, 1000000},
		{"heartbeat", &Heartbeat{}, 3, 2000},
		{"enable", &Enable{On: 1}, 0xFFFFFFFF, 1 << 40},
		{"tactile_frame", &TactileFrame{A40Nm: a40, A320Nm: a320, Tag: 42}, 77, 123456789},
		{"error", &ErrorReport{Code: CodeSequence, RefType: TypeCommand, RefSeq: 4, Value: -1}, 5, 99},
	}
	var e Encoder
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := vec[tc.name]
			if want == nil {
				t.Fatalf("no vector %q", tc.name)
			}
			got := e.Encode(tc.body, tc.seq, tc.timeUs)
			if !bytes.Equal(got, want) {
				t.Errorf("Encode:\n got %x\nwant %x", got, want)
			}
			var d Decoder
			n, f, err := d.Decode(want)
			if err != nil || f == nil || n != len(want) {
				t.Fatalf("Decode = %d, %v, %v", n, f, err)
			}
			if f.Type != tc.body.MsgType() || f.Seq != tc.seq || f.TimeUs != tc.timeUs {
				t.Errorf("header %+v", f.Header)
			}
			back := message(f.Type)
			if err := back.Parse(f.Body); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tc.body) {
				t.Errorf("Parse = %+v, want %+v", back, tc.body)
			}
		})
	}
	if got := crc32.Checksum([]byte("123456789"), crcTable); got != 0xCBF43926 {
		t.Errorf("CRC check value %08x, want cbf43926", got)
	}
}

func TestCOBSRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	enc := make([]byte, 2*MaxEncoded)
	dec := make([]byte, 2*MaxEncoded)
	for _, n := range []int{0, 1, 2, 253, 254, 255, 300} {
		for _, zeros := range []float64{0, 0.1, 0.5, 1} {
			src := make([]byte, n)
			for i := range src {
				if r.Float64() >= zeros {
					src[i] = byte(1 + r.IntN(255))
				}
			}
			k := cobsEncode(enc, src)
			if k > n+n/254+1 {
				t.Errorf("n=%d: encoding %d bytes", n, k)
			}
			if bytes.IndexByte(enc[:k], 0) >= 0 {
				t.Errorf("n=%d: encoding contains a zero", n)
			}
			m, err := cobsDecode(dec, enc[:k])
			if err != nil || !bytes.Equal(dec[:m], src) {
				t.Errorf("n=%d zeros=%v: round trip failed: %v", n, zeros, err)
			}
		}
	}
}

func randomBody(r *rand.Rand) Body {
	switch r.IntN(4) {
	case 0:
		return &State{JointURad: [3]int32{r.Int32(), -r.Int32(), 0}, Status: uint16(r.IntN(16)), AckSeq: r.Uint32()}
	case 1:
		return &Command{TorqueUNm: [3]int32{r.Int32(), 0, -r.Int32()}, Tag: r.Uint32()}
	case 2:
		var f TactileFrame
		for i := range f.A40Nm {
			f.A40Nm[i] = uint32(r.IntN(3)) * r.Uint32()
		}
		return &f
	}
	return &Heartbeat{}
}

// TestDecoderStream splits a stream of frames into random chunks.
func TestDecoderStream(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var e Encoder
	var stream []byte
	var want [][]byte
	for i := range 500 {
		b := e.Encode(randomBody(r), uint32(i+1), uint64(i))
		stream = append(stream, b...)
		want = append(want, append([]byte(nil), b...))
	}
	var d Decoder
	var got [][]byte
	for p := stream; len(p) > 0; {
		chunk := p[:min(len(p), 1+r.IntN(300))]
		p = p[len(chunk):]
		for len(chunk) > 0 {
			n, f, err := d.Decode(chunk)
			chunk = chunk[n:]
			if err != nil {
				t.Fatal(err)
			}
			if f != nil {
				got = append(got, append([]byte(nil), e.EncodeRaw(f.Type, f.Body, f.Seq, f.TimeUs)...))
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("decoded %d frames, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("frame %d differs", i)
		}
	}
	if d.Stats.Frames != 500 || d.Stats.Corrupt() != 0 {
		t.Errorf("stats %+v", d.Stats)
	}
}

// feed decodes all of p and returns the valid frames (re-encoded) and the
// errors.
func feed(d *Decoder, p []byte) (frames [][]byte, errs []error) {
	var e Encoder
	for len(p) > 0 {
		n, f, err := d.Decode(p)
		p = p[n:]
		if err != nil {
			errs = append(errs, err)
		}
		if f != nil {
			frames = append(frames, append([]byte(nil), e.EncodeRaw(f.Type, f.Body, f.Seq, f.TimeUs)...))
		}
	}
	return frames, errs
}

func TestDecoderRejects(t *testing.T) {
	var e Encoder
	good := append([]byte(nil), e.Encode(&Command{Tag: 9}, 1, 2)...)
	raw := func(b []byte) []byte { // COBS-frame arbitrary bytes
		enc := make([]byte, len(b)+len(b)/254+2)
		k := cobsEncode(enc, b)
		return append(enc[:k], 0)
	}
	withCRC := func(b []byte) []byte {
		return le.AppendUint32(append([]byte(nil), b...), crc32.Checksum(b, crcTable))
	}
	hdr := func(version uint8, bodyLen uint16, body int) []byte {
		b := make([]byte, HeaderSize+body)
		h := Header{Type: TypeCommand, Version: version, BodyLen: bodyLen, Seq: 1}
		h.put(b)
		return b
	}
	badCRC := append([]byte(nil), good...)
	badCRC[5] ^= 0x40
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"oversize", append(bytes.Repeat([]byte{7}, 400), 0), ErrOversize},
		{"framing", []byte{9, 1, 2, 0}, ErrFraming},
		{"short", raw(make([]byte, 19)), ErrShort},
		{"crc", badCRC, ErrCRC},
		{"version", raw(withCRC(hdr(2, 16, 16))), ErrVersion},
		{"length", raw(withCRC(hdr(1, 15, 16))), ErrLength},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d Decoder
			frames, errs := feed(&d, append(append([]byte(nil), tc.in...), good...))
			if len(errs) != 1 || errs[0] != tc.want {
				t.Errorf("errors %v, want [%v]", errs, tc.want)
			}
			if len(frames) != 1 || !bytes.Equal(frames[0], good) {
				t.Errorf("the good frame after it was not recovered: %d frames", len(frames))
			}
			if d.Stats.Frames != 1 {
				t.Errorf("stats %+v", d.Stats)
			}
		})
	}
	var d Decoder
	if frames, errs := feed(&d, []byte{0, 0, 0}); len(frames)+len(errs) != 0 || d.Stats.Empty != 3 {
		t.Errorf("lone delimiters: %d frames, %v, stats %+v", len(frames), errs, d.Stats)
	}
}

// TestEveryBitFlipRejected flips each bit of a STATE frame on the wire, in
// a stream between two good frames: the decoder must never accept a frame
// that was not sent.
func TestEveryBitFlipRejected(t *testing.T) {
	var e Encoder
	before := append([]byte(nil), e.Encode(&Heartbeat{}, 1, 0)...)
	victim := append([]byte(nil), e.Encode(&State{JointURad: [3]int32{1, 2, 3}, Status: 1, AckSeq: 5}, 2, 1000)...)
	after := append([]byte(nil), e.Encode(&Command{Tag: 3}, 3, 2000)...)
	sent := map[string]bool{string(before): true, string(victim): true, string(after): true}
	for i := range len(victim) * 8 {
		stream := append(append(append([]byte(nil), before...), victim...), after...)
		stream[len(before)+i/8] ^= 1 << (i % 8)
		var d Decoder
		frames, errs := feed(&d, stream)
		for _, f := range frames {
			if !sent[string(f)] || bytes.Equal(f, victim) {
				t.Fatalf("bit %d: accepted a frame that was not sent intact", i)
			}
		}
		if len(errs) == 0 {
			t.Fatalf("bit %d: no error counted", i)
		}
	}
}

func TestHIDReports(t *testing.T) {
	var e Encoder
	var stream []byte
	for i := range 20 {
		stream = append(stream, e.Encode(&TactileFrame{Tag: uint32(i)}, uint32(i+1), 0)...)
	}
	var reports [][]byte
	for p := stream; len(p) > 0; {
		r := make([]byte, HIDReportSize)
		p = p[PutReport(r, p):]
		reports = append(reports, r)
	}
	var got []byte
	for _, r := range reports {
		b, err := ReportData(r)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b...)
	}
	if !bytes.Equal(got, stream) {
		t.Fatal("report round trip differs")
	}
	for _, bad := range [][]byte{{}, {64}, append([]byte{10}, make([]byte, 5)...)} {
		if _, err := ReportData(bad); err == nil {
			t.Errorf("ReportData(% x) accepted", bad)
		}
	}
	if b, err := ReportData([]byte{2, 7, 8}); err != nil || !bytes.Equal(b, []byte{7, 8}) {
		t.Errorf("short report: %v %v", b, err)
	}
}

func TestSeqArithmetic(t *testing.T) {
	if NextSeq(0xFFFFFFFF) != 1 || NextSeq(5) != 6 {
		t.Error("NextSeq")
	}
	if !SeqAfter(1, 0xFFFFFFFF) || SeqAfter(5, 5) || SeqAfter(4, 5) || !SeqAfter(6, 5) {
		t.Error("SeqAfter")
	}
}

func TestNoAllocs(t *testing.T) {
	var e Encoder
	var d Decoder
	st := &State{Status: 1}
	cmd := &Command{Tag: 1}
	var frame []byte
	if n := testing.AllocsPerRun(1000, func() {
		frame = e.Encode(st, 1, 2)
	}); n != 0 {
		t.Errorf("Encode: %v allocs", n)
	}
	frame = append([]byte(nil), frame...)
	if n := testing.AllocsPerRun(1000, func() {
		_, f, err := d.Decode(frame)
		if f == nil || err != nil {
			panic("decode failed")
		}
		var s State
		if s.Parse(f.Body) != nil {
			panic("parse failed")
		}
		_ = e.Encode(cmd, 2, 3)
	}); n != 0 {
		t.Errorf("Decode+Parse: %v allocs", n)
	}
}

func BenchmarkEncodeState(b *testing.B) {
	var e Encoder
	st := &State{Status: 1, JointURad: [3]int32{1, 2, 3}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e.Encode(st, uint32(i), uint64(i))
	}
}

func BenchmarkDecodeState(b *testing.B) {
	var e Encoder
	frame := append([]byte(nil), e.Encode(&State{Status: 1, JointURad: [3]int32{1, 2, 3}}, 1, 1)...)
	var d Decoder
	var s State
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		_, f, _ := d.Decode(frame)
		_ = s.Parse(f.Body)
	}
}

func TestNanometres(t *testing.T) {
	for _, tc := range []struct {
		um   float64
		want uint32
	}{{1.2345, 1235}, {0.0004, 0}, {200, 200_000}, {-1, 0}, {math.NaN(), 0}, {1e12, math.MaxUint32}, {math.Inf(1), math.MaxUint32}} {
		if got := Nanometres(tc.um); got != tc.want {
			t.Errorf("Nanometres(%v) = %d, want %d", tc.um, got, tc.want)
		}
	}
}
