package device

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
)

// tactileSamples measures an ideal array whose pin p has gain gain(p, hz)
// [dB] at every level, plus nonlin(level index) dB.
func tactileSamples(gain func(p, hz int) float64, nonlin func(l int) float64) []TactileSample {
	var s []TactileSample
	for p := range devices.Pins {
		for _, hz := range []int{Hz40, Hz320} {
			for l, a := range []float64{5, 20, 80} {
				g := gain(p, hz) + nonlin(l)
				s = append(s, TactileSample{Pin: p, FreqHz: hz, CommandedUm: a, MeasuredUm: a * math.Pow(10, g/20)})
			}
		}
	}
	return s
}

func TestFitTactile(t *testing.T) {
	gain := func(p, hz int) float64 { return 0.1*float64(p) - 1 + float64(hz)/1000 }
	c, err := FitTactile(tactileSamples(gain, func(int) float64 { return 0 }))
	if err != nil {
		t.Fatal(err)
	}
	for p := range devices.Pins {
		if math.Abs(c.Pin40DB[p]+gain(p, Hz40)) > 1e-12 || math.Abs(c.Pin320DB[p]+gain(p, Hz320)) > 1e-12 {
			t.Errorf("pin %d: corrections %g, %g dB, gains %g, %g dB", p, c.Pin40DB[p], c.Pin320DB[p], gain(p, Hz40), gain(p, Hz320))
		}
	}
	if c.Report.ResidualMaxDB > 1e-12 || len(c.Report.Warnings) != 0 {
		t.Errorf("linear array: residual %g dB, warnings %q", c.Report.ResidualMaxDB, c.Report.Warnings)
	}

	// A compressive array (−0.3 dB at the top level, +0.15 dB at the
	// others): the gain is the mean, the residuals show the compression,
	// and the standard error is that of a mean of three.
	c, err = FitTactile(tactileSamples(gain, func(l int) float64 { return [3]float64{0.15, 0.15, -0.3}[l] }))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.Pin40DB[3]+gain(3, Hz40)) > 1e-12 {
		t.Errorf("pin 3 correction %g dB, want %g", c.Pin40DB[3], -gain(3, Hz40))
	}
	// Residuals 0.15, 0.15, −0.3: RMS √0.045, max 0.3; SE = √(0.135/2/3).
	if math.Abs(c.Report.ResidualMaxDB-0.3) > 1e-9 || math.Abs(c.Report.ResidualRMSDB-math.Sqrt(0.045)) > 1e-9 ||
		math.Abs(c.Report.Gain40SE[0]-math.Sqrt(0.135/6)) > 1e-9 {
		t.Errorf("residual max %g, RMS %g dB, SE %g dB", c.Report.ResidualMaxDB, c.Report.ResidualRMSDB, c.Report.Gain40SE[0])
	}

	// A weak pin is corrected and flagged.
	weak := func(p, hz int) float64 {
		if p == 9 {
			return -8
		}
		return 0
	}
	c, err = FitTactile(tactileSamples(weak, func(int) float64 { return 0 }))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.Pin40DB[9]-8) > 1e-12 || len(c.Report.Warnings) != 2 || !strings.Contains(c.Report.Warnings[0], "pin 9") {
		t.Errorf("weak pin: correction %g dB, warnings %q", c.Pin40DB[9], c.Report.Warnings)
	}
}

func TestFitTactileErrors(t *testing.T) {
	flat := func(int, int) float64 { return 0 }
	none := func(int) float64 { return 0 }
	for _, tc := range []struct {
		name  string
		edit  func([]TactileSample) []TactileSample
		match string
	}{
		{"dead pin", func(s []TactileSample) []TactileSample { s[30].MeasuredUm = 0; return s }, "dead contactor"},
		{"NaN", func(s []TactileSample) []TactileSample { s[2].MeasuredUm = math.NaN(); return s }, "sample 2"},
		{"zero command", func(s []TactileSample) []TactileSample { s[4].CommandedUm = 0; return s }, "commanded"},
		{"pin out of range", func(s []TactileSample) []TactileSample { s[0].Pin = 24; return s }, "pin 24"},
		{"other frequency", func(s []TactileSample) []TactileSample { s[0].FreqHz = 250; return s }, "250 Hz"},
		{"missing pin", func(s []TactileSample) []TactileSample { return s[6:] }, "pin 0"},
		{"broken pin", func(s []TactileSample) []TactileSample {
			for i := range s {
				if s[i].Pin == 5 {
					s[i].MeasuredUm = s[i].CommandedUm * 1e-3
				}
			}
			return s
		}, "pin 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FitTactile(tc.edit(tactileSamples(flat, none)))
			if err == nil || !strings.Contains(err.Error(), tc.match) {
				t.Errorf("error %v, want it to mention %q", err, tc.match)
			}
		})
	}
}

func TestTactileCalibrationFile(t *testing.T) {
	c, err := FitTactile(tactileSamples(func(p, _ int) float64 { return 0.05 * float64(p) }, func(int) float64 { return 0 }))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(&bytes.Buffer{}); err == nil {
		t.Error("calibration without a finger written")
	}
	c.Device, c.Finger, c.Created = "haptex simulated 24-pin array sim-tactile-1", "index", time.Date(2026, 5, 27, 9, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	if err := c.Write(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	d, err := ReadTactileCalibration(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if d.Pin40DB != c.Pin40DB || d.Pin320DB != c.Pin320DB || len(d.Report.Samples) != len(c.Report.Samples) {
		t.Error("calibration changed on reload")
	}
	for _, e := range []struct{ old, new string }{
		{`"version": 1`, `"version": 0`},
		{`"format": "haptex-tactile-calibration"`, `"format": "haptex-kinematic-calibration"`},
		{`"finger": "index"`, `"finger": "middle"`},
		{`"pin_40_db": [`, `"pin_40_db": [41, `},
		{`"pin_320_db": [`, `"pin_320_db": [1e999, `},
		{`"device"`, `"extra": 1, "device"`},
	} {
		bad := strings.Replace(good, e.old, e.new, 1)
		if bad == good {
			t.Fatalf("%q not found", e.old)
		}
		if _, err := ReadTactileCalibration(strings.NewReader(bad)); err == nil {
			t.Errorf("file with %s accepted", e.new)
		}
	}
}
