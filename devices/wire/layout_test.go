package wire

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated tables in docs/protocol.md from layout.go")

const docPath = "../../docs/protocol.md"

// message returns a fresh value of the body type t.
func message(t Type) interface {
	Body
	Parse([]byte) error
} {
	switch t {
	case TypeHello:
		return new(Hello)
	case TypeCapsExo:
		return new(CapsExo)
	case TypeCapsTactile:
		return new(CapsTactile)
	case TypeState:
		return new(State)
	case TypeCommand:
		return new(Command)
	case TypeEnable:
		return new(Enable)
	case TypeTactileFrame:
		return new(TactileFrame)
	case TypeTactileStatus:
		return new(TactileStatus)
	case TypeTactileMeasured:
		return new(TactileMeasured)
	case TypeHeartbeat:
		return new(Heartbeat)
	case TypeError:
		return new(ErrorReport)
	}
	return nil
}

func fieldType(f Field) string {
	if f.Count == 1 {
		return f.Type
	}
	return fmt.Sprintf("%s[%d]", f.Type, f.Count)
}

func renderLayout(l *Layout) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s bytes.\n\n", strconv.Itoa(l.Size()))
	if len(l.Fields) == 0 {
		return b.String()
	}
	b.WriteString("| offset | field | type | unit | meaning |\n|---:|---|---|---|---|\n")
	for _, f := range l.Fields {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s |\n", f.Off, f.Name, fieldType(f), f.Unit, f.Doc)
	}
	return b.String()
}

func renderTypes() string {
	var b strings.Builder
	b.WriteString("| type | name | from | body bytes | meaning |\n|---|---|---|---:|---|\n")
	for i := range Layouts {
		l := &Layouts[i]
		fmt.Fprintf(&b, "| 0x%02X | %s | %s | %d | %s |\n", uint8(l.Type), l.Name, l.From, l.Size(), l.Doc)
	}
	return b.String()
}

func renderBits(bits []Bit) string {
	var b strings.Builder
	b.WriteString("| mask | name | meaning |\n|---|---|---|\n")
	for _, x := range bits {
		fmt.Fprintf(&b, "| 0x%04X | %s | %s |\n", x.Mask, x.Name, x.Doc)
	}
	return b.String()
}

func renderCodes() string {
	var b strings.Builder
	b.WriteString("| code | name | value | meaning |\n|---:|---|---|---|\n")
	for _, c := range Codes {
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", c.Code, c.Name, c.Value, c.Doc)
	}
	return b.String()
}

// generated is every generated table of docs/protocol.md, by marker name.
func generated() map[string]string {
	m := map[string]string{
		"header":       renderLayout(&HeaderLayout),
		"types":        renderTypes(),
		"state-bits":   renderBits(StateBits),
		"tactile-bits": renderBits(TactileBits),
		"fault-bits":   renderBits(FaultBits),
		"error-codes":  renderCodes(),
	}
	for i := range Layouts {
		m[Layouts[i].Name] = renderLayout(&Layouts[i])
	}
	m["examples"] = renderExamples()
	return m
}

func hexBytes(b []byte) string {
	var s strings.Builder
	for i, c := range b {
		switch {
		case i == 0:
		case i%16 == 0:
			s.WriteString("\n")
		default:
			s.WriteByte(' ')
		}
		fmt.Fprintf(&s, "%02X", c)
	}
	return s.String()
}

// renderExamples shows complete frames as the Encoder builds them.
func renderExamples() string {
	examples := []struct {
		title  string
		body   Body
		seq    uint32
		timeUs uint64
	}{
		{"HELLO, major 1, minor 0, nonce 0x12345678; host seq 1 at host time 0", &Hello{Major: 1, Nonce: 0x12345678}, 1, 0},
		{"COMMAND, torques (0.01, -0.02, 0) N·m, tag 7; host seq 2 at 1500 µs", &Command{TorqueUNm: [3]int32{10000, -20000, 0}, Tag: 7}, 2, 1500},
		{"STATE answering it: joints (0.5, 0.25, -0.1) rad, force (0, 0, 1.5) N, enabled; device seq 9 at 1 s", &State{
			JointURad: [3]int32{500000, 250000, -100000}, ForceUN: [3]int32{0, 0, 1500000}, TorqueUNm: [3]int32{10000, -20000, 0},
			Status: StateEnabled, AckSeq: 2, AckTag: 7}, 9, 1000000},
		{"HEARTBEAT; host seq 3 at 2000 µs", &Heartbeat{}, 3, 2000},
	}
	var b strings.Builder
	var e Encoder
	for _, x := range examples {
		wire := e.Encode(x.body, x.seq, x.timeUs)
		raw := make([]byte, MaxFrame)
		n, err := cobsDecode(raw, wire[:len(wire)-1])
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(&b, "%s:\n\n```\nframe (header, body, CRC-32), %d bytes:\n%s\non the wire (COBS, then the 0x00 delimiter), %d bytes:\n%s\n```\n\n",
			x.title, n, hexBytes(raw[:n]), len(wire), hexBytes(wire))
	}
	return b.String()
}

const beginMark, endMark = "<!-- table: ", "<!-- /table -->"

// docSections returns the text between each table marker pair of doc.
func docSections(t *testing.T, doc string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for rest := doc; ; {
		i := strings.Index(rest, beginMark)
		if i < 0 {
			return out
		}
		rest = rest[i+len(beginMark):]
		j := strings.Index(rest, " -->\n")
		if j < 0 {
			t.Fatalf("%s: unterminated table marker", docPath)
		}
		name := rest[:j]
		rest = rest[j+len(" -->\n"):]
		k := strings.Index(rest, endMark)
		if k < 0 {
			t.Fatalf("%s: table %q has no end marker", docPath, name)
		}
		out[name] = strings.TrimPrefix(rest[:k], "\n")
		rest = rest[k:]
	}
}

func rewriteDoc(doc string, gen map[string]string) string {
	var b strings.Builder
	for rest := doc; ; {
		i := strings.Index(rest, beginMark)
		if i < 0 {
			b.WriteString(rest)
			return b.String()
		}
		j := strings.Index(rest[i:], " -->\n")
		name := rest[i+len(beginMark) : i+j]
		b.WriteString(rest[:i+j+len(" -->\n")])
		rest = rest[i+j+len(" -->\n"):]
		k := strings.Index(rest, endMark)
		b.WriteString("\n" + gen[name])
		rest = rest[k:]
	}
}

// TestProtocolDocTables checks that docs/protocol.md shows exactly the
// tables layout.go holds (go test -run TestProtocolDocTables -update
// rewrites them).
func TestProtocolDocTables(t *testing.T) {
	raw, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	gen := generated()
	if *update {
		if err := os.WriteFile(docPath, []byte(rewriteDoc(string(raw), gen)), 0o644); err != nil {
			t.Fatal(err)
		}
		raw, _ = os.ReadFile(docPath)
	}
	sec := docSections(t, string(raw))
	for name, want := range gen {
		got, ok := sec[name]
		if !ok {
			t.Errorf("%s: no table %q", docPath, name)
			continue
		}
		if got != want {
			t.Errorf("%s: table %q is stale (run go test ./devices/wire -run TestProtocolDocTables -update)\ngot:\n%s\nwant:\n%s", docPath, name, got, want)
		}
	}
	for name := range sec {
		if _, ok := gen[name]; !ok {
			t.Errorf("%s: table %q is not generated from layout.go", docPath, name)
		}
	}
}

// docFields parses a layout table of docs/protocol.md back into fields.
func docFields(t *testing.T, table string) []Field {
	t.Helper()
	var fs []Field
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 7 {
			continue
		}
		off, err := strconv.Atoi(strings.TrimSpace(cells[1]))
		if err != nil {
			continue // header and separator rows
		}
		f := Field{Off: off, Name: strings.TrimSpace(cells[2]), Count: 1, Unit: strings.TrimSpace(cells[4])}
		typ := strings.TrimSpace(cells[3])
		if i := strings.IndexByte(typ, '['); i >= 0 {
			f.Count, err = strconv.Atoi(strings.TrimSuffix(typ[i+1:], "]"))
			if err != nil {
				t.Fatalf("bad type %q", typ)
			}
			typ = typ[:i]
		}
		f.Type = typ
		fs = append(fs, f)
	}
	return fs
}

// validValue gives constrained fields values their parsers accept.
var validValue = map[string]uint64{
	"kind": 0, "dof": 3, "period_us": 1000, "watchdog_ms": 50, "rows": 6, "cols": 4,
	"waveform": 1, "measures": 1, "on": 1, "frame_period_us": 25000, "max_force_cont_mn": 5000, "max_force_peak_mn": 9000,
}

// fill sets every field named in fs to a distinct value and returns the
// values by field name and element.
func fill(t *testing.T, msg any, lay *Layout, kind Kind) map[string][]uint64 {
	t.Helper()
	v := reflect.ValueOf(msg).Elem()
	want := map[string][]uint64{}
	for k, f := range lay.Fields {
		if f.Go == "" {
			continue
		}
		fv := v.FieldByName(f.Go)
		if !fv.IsValid() {
			t.Fatalf("%s: no Go field %s", lay.Name, f.Go)
		}
		vals := make([]uint64, f.Count)
		for i := range vals {
			x := uint64(k*37+i*5+1) * 0x01010101
			switch f.Type {
			case "char":
				x = uint64('A' + (k+i)%26)
			case "u8":
				x &= 0x7F
			case "u16":
				x &= 0x7FFF
			case "u32":
				x &= 0xFFFFFFFF
			case "u64":
				x |= x << 33
			case "i32":
				x = uint64(int64(-int32(x & 0x3FFFFFFF)))
				if f.Name == "joint_max_urad" {
					x = uint64(int64(int32(x)) * -1)
				}
			}
			if w, ok := validValue[f.Name]; ok {
				x = w
			}
			if f.Name == "kind" {
				x = uint64(kind)
			}
			vals[i] = x
		}
		want[f.Name] = vals
		setField(t, fv, f.Type, vals)
	}
	return want
}

func setField(t *testing.T, fv reflect.Value, typ string, vals []uint64) {
	if fv.Kind() == reflect.Array {
		if fv.Len() != len(vals) {
			t.Fatalf("array length %d, table count %d", fv.Len(), len(vals))
		}
		for i, x := range vals {
			setScalar(fv.Index(i), typ, x)
		}
		return
	}
	if len(vals) != 1 {
		t.Fatalf("scalar Go field for a table array")
	}
	setScalar(fv, typ, vals[0])
}

func setScalar(v reflect.Value, typ string, x uint64) {
	switch v.Kind() {
	case reflect.Int32:
		v.SetInt(int64(int32(x)))
	default:
		v.SetUint(x)
	}
}

func readField(b []byte, typ string, off int) uint64 {
	switch typ {
	case "u8", "char":
		return uint64(b[off])
	case "u16":
		return uint64(le.Uint16(b[off:]))
	case "u32":
		return uint64(le.Uint32(b[off:]))
	case "i32":
		return uint64(int64(int32(le.Uint32(b[off:]))))
	case "u64":
		return le.Uint64(b[off:])
	}
	panic(typ)
}

// checkEncoding encodes msg after filling it from lay and reads every field
// back at the offsets and types of fs (the table under test).
func checkEncoding(t *testing.T, lay *Layout, fs []Field, kind Kind) {
	msg := message(lay.Type)
	want := fill(t, msg, lay, kind)
	if msg.Size() != lay.Size() {
		t.Fatalf("%s: Size() = %d, table says %d", lay.Name, msg.Size(), lay.Size())
	}
	body := bytes.Repeat([]byte{0xAA}, msg.Size())
	msg.Put(body)
	covered := 0
	for _, f := range fs {
		for i := 0; i < f.Count; i++ {
			got := readField(body, f.Type, f.Off+i*typeSize(f.Type))
			var w uint64
			if vals, ok := want[f.Name]; ok {
				w = vals[i]
			}
			if got != w {
				t.Errorf("%s.%s[%d] at offset %d: encoded %#x, want %#x", lay.Name, f.Name, i, f.Off+i*typeSize(f.Type), got, w)
			}
		}
		covered += f.Size()
	}
	if covered != msg.Size() {
		t.Errorf("%s: table fields cover %d bytes, body is %d", lay.Name, covered, msg.Size())
	}
	back := message(lay.Type)
	if err := back.Parse(body); err != nil {
		t.Fatalf("%s: Parse(Put(m)): %v", lay.Name, err)
	}
	if !reflect.DeepEqual(back, msg) {
		t.Errorf("%s: Parse(Put(m)) = %+v, want %+v", lay.Name, back, msg)
	}
	if err := message(lay.Type).Parse(body[:max(0, msg.Size()-1)]); msg.Size() > 0 && err == nil {
		t.Errorf("%s: Parse accepted a body one byte short", lay.Name)
	}
}

func kindOf(t Type) Kind {
	if t == TypeCapsTactile {
		return KindTactile
	}
	return KindExo
}

// TestLayoutsMatchEncoders puts every field of every message where the Go
// tables say and parses it back.
func TestLayoutsMatchEncoders(t *testing.T) {
	for i := range Layouts {
		lay := &Layouts[i]
		t.Run(lay.Name, func(t *testing.T) {
			off := 0
			for _, f := range lay.Fields {
				if f.Off != off {
					t.Errorf("%s.%s at %d, previous field ends at %d", lay.Name, f.Name, f.Off, off)
				}
				off = f.Off + f.Size()
				if f.Off%min(typeSize(f.Type), 4) != 0 {
					t.Errorf("%s.%s at %d is not aligned", lay.Name, f.Name, f.Off)
				}
			}
			checkEncoding(t, lay, lay.Fields, kindOf(lay.Type))
			goFields := map[string]bool{}
			for _, f := range lay.Fields {
				goFields[f.Go] = true
			}
			for _, sf := range reflect.VisibleFields(reflect.TypeOf(message(lay.Type)).Elem()) {
				if !sf.Anonymous && sf.IsExported() && !goFields[sf.Name] {
					t.Errorf("%s: Go field %s is in no table row", lay.Name, sf.Name)
				}
			}
		})
	}
	if HeaderLayout.Size() != HeaderSize {
		t.Errorf("header table is %d bytes, HeaderSize %d", HeaderLayout.Size(), HeaderSize)
	}
	for i := range Layouts {
		if n := HeaderSize + Layouts[i].Size() + CRCSize; n > MaxFrame {
			t.Errorf("%s frame is %d bytes, MaxFrame %d", Layouts[i].Name, n, MaxFrame)
		}
	}
}

// TestDocTablesMatchEncoders reads the layouts from docs/protocol.md (not
// from layout.go) and checks the encoders against them: a firmware
// engineer who implements the document gets the bytes haptex sends.
func TestDocTablesMatchEncoders(t *testing.T) {
	raw, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	sec := docSections(t, string(raw))
	for i := range Layouts {
		lay := &Layouts[i]
		t.Run(lay.Name, func(t *testing.T) {
			fs := docFields(t, sec[lay.Name])
			if len(fs) != len(lay.Fields) {
				t.Fatalf("doc lists %d fields, code %d", len(fs), len(lay.Fields))
			}
			checkEncoding(t, lay, fs, kindOf(lay.Type))
		})
	}
	hs := docFields(t, sec["header"])
	h := Header{Type: 0x12, Version: 0x34, BodyLen: 0x5678, Seq: 0x9ABCDEF0, TimeUs: 0x0102030405060708}
	var b [HeaderSize]byte
	h.put(b[:])
	want := map[string]uint64{"type": 0x12, "version": 0x34, "body_len": 0x5678, "seq": 0x9ABCDEF0, "time_us": 0x0102030405060708}
	if len(hs) != len(want) {
		t.Fatalf("doc header has %d fields, want %d", len(hs), len(want))
	}
	for _, f := range hs {
		if got := readField(b[:], f.Type, f.Off); got != want[f.Name] {
			t.Errorf("header.%s at %d: %#x, want %#x", f.Name, f.Off, got, want[f.Name])
		}
	}
	var back Header
	back.parse(b[:])
	if back != h {
		t.Errorf("header parse(put(h)) = %+v, want %+v", back, h)
	}
}

// Size is the field's length in bytes.
func (f Field) Size() int { return typeSize(f.Type) * f.Count }

func typeSize(t string) int {
	switch t {
	case "u8", "char":
		return 1
	case "u16":
		return 2
	case "u32", "i32":
		return 4
	case "u64":
		return 8
	}
	panic("wire: unknown field type " + t)
}

// Size is the layout's length in bytes.
func (l *Layout) Size() int {
	if len(l.Fields) == 0 {
		return 0
	}
	f := l.Fields[len(l.Fields)-1]
	return f.Off + f.Size()
}
