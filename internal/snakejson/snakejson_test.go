package snakejson

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{
		"PadRadius": "pad_radius", "COM": "com", "NoiseRMS": "noise_rms", "MaxForceCont": "max_force_cont",
		"A40FullScaleUm": "a40_full_scale_um", "Kf": "kf", "DLS": "dls", "ChebyRippleDB": "cheby_ripple_db",
		"SamplePeriodMs": "sample_period_ms", "F0": "f0", "MaxA320Um": "max_a320_um", "X": "x", "ID": "id",
		"HTTPServer": "http_server", "P999": "p999",
	} {
		if got := Snake(in); got != want {
			t.Errorf("Snake(%q) = %q, want %q", in, got, want)
		}
	}
}

type inner struct {
	PadRadius float64
	Tagged    int `json:"tagged_n"`
	Gains     [2]float64
}

type Embedded struct{ EmbeddedField int }

type outer struct {
	Embedded
	Scene    inner            `json:"scene"`
	Ptr      *inner           `json:"ptr,omitempty"`
	List     []inner          `json:"list"`
	ByName   map[string]inner `json:"by_name"`
	When     time.Time        `json:"when"`
	Dur      time.Duration    `json:"dur_ns"`
	Skipped  string           `json:"-"`
	Untagged struct{ MaxForce float64 }
	Raw      json.RawMessage `json:"raw"`
}

// Every key an untagged field writes is snake_case, nothing else
// changes, and reading it back gives the same value; so does reading the
// Go field names encoding/json writes.
func TestRoundTrip(t *testing.T) {
	third := 0.1
	v := outer{
		Embedded: Embedded{7},
		Scene:    inner{PadRadius: 0.008, Tagged: 3, Gains: [2]float64{1, 0.1}},
		Ptr:      &inner{PadRadius: 1e-300},
		List:     []inner{{PadRadius: 2}},
		ByName:   map[string]inner{"MixedKey": {PadRadius: third + 0.2}},
		When:     time.Date(2026, 11, 26, 1, 2, 3, 4, time.UTC),
		Dur:      1500 * time.Millisecond,
		Untagged: struct{ MaxForce float64 }{5},
		Raw:      json.RawMessage(`{"KeepMe":1}`),
	}
	b, err := MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"embedded_field"`, `"pad_radius"`, `"tagged_n"`, `"gains"`, `"untagged"`, `"max_force"`, `"MixedKey"`, `"KeepMe"`, `"dur_ns": 1500000000`, `0.30000000000000004`, `1e-300`} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %s:\n%s", want, s)
		}
	}
	if strings.Index(s, `"embedded_field"`) > strings.Index(s, `"scene"`) {
		t.Errorf("fields out of their struct's order:\n%s", s)
	}
	for _, bad := range []string{`"PadRadius"`, `"MaxForce"`, `"EmbeddedField"`} {
		if strings.Contains(s, bad) {
			t.Errorf("output has %s:\n%s", bad, s)
		}
	}
	var back outer
	if err := Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, v) {
		t.Errorf("read back %+v\nwant %+v", back, v)
	}
	old, _ := json.Marshal(v)
	var fromOld outer
	if err := Unmarshal(old, &fromOld); err != nil || !reflect.DeepEqual(fromOld, v) {
		t.Errorf("reading Go field names: %+v, %v", fromOld, err)
	}
}

type file struct {
	PeriodMs float64
	Gain     float64
}

// withMarshaler writes itself through another layout, as haptics.Config
// and twin.ExoParams do.
type withMarshaler struct {
	Period float64
	Gain   float64 `toml:"gain_n_per_m"`
}

func (w withMarshaler) MarshalJSON() ([]byte, error) {
	return json.Marshal(file{PeriodMs: w.Period * 1e3, Gain: w.Gain})
}

func (w *withMarshaler) UnmarshalJSON(b []byte) error {
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*w = withMarshaler{Period: f.PeriodMs / 1e3, Gain: f.Gain}
	return nil
}

// A type with its own MarshalJSON gets its toml names and snake_case
// for the keys it adds, and reads back.
func TestMarshalerAndTOMLNames(t *testing.T) {
	type holder struct {
		Servo withMarshaler `json:"servo"`
	}
	v := holder{withMarshaler{Period: 0.001, Gain: 3}}
	b, err := MarshalIndent(v, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, `"period_ms"`) || !strings.Contains(s, `"gain_n_per_m"`) {
		t.Errorf("keys: %s", s)
	}
	var back holder
	if err := Unmarshal(b, &back); err != nil || back != v {
		t.Errorf("read back %+v, %v; want %+v", back, err, v)
	}
}
