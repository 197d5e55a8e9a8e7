package rig

import (
	"math"
	"math/cmplx"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
	"github.com/haptex/haptex/tactile"
)

// vibrometer is a simulated array whose pins' motion the test reads at
// every step of the clock, with its own discrete Fourier transform at 40
// and 320 Hz: what each pin did over the 25 ms before each time the rig
// advanced the array to.
type vibrometer struct {
	*twin.Tactile
	trace []float64
	basis [2][]complex128 // e^(-i 2π f t) at the trace's sample times, from its start
	lines map[time.Duration]*[2][devices.Pins]float64
}

func newVibrometer(t *testing.T, f int) *vibrometer {
	a, err := twin.NewTactile(twin.DefaultTactileParams(), f)
	if err != nil {
		t.Fatal(err)
	}
	v := &vibrometer{Tactile: a, trace: make([]float64, twin.TactileWindow), lines: map[time.Duration]*[2][devices.Pins]float64{}}
	for k, hz := range [2]float64{40, 320} {
		v.basis[k] = make([]complex128, twin.TactileWindow)
		for i := range v.basis[k] {
			v.basis[k][i] = cmplx.Exp(complex(0, -2*math.Pi*hz*float64(i)/twin.TactileSampleRate))
		}
	}
	return v
}

func (v *vibrometer) Advance(t time.Duration) {
	v.Tactile.Advance(t)
	var l [2][devices.Pins]float64
	for p := range devices.Pins {
		if _, err := v.Vibration(p, v.trace); err != nil {
			panic(err)
		}
		for k := range l {
			var c complex128
			for i, x := range v.trace {
				c += complex(x, 0) * v.basis[k][i]
			}
			l[k][p] = 2 * cmplx.Abs(c) / twin.TactileWindow
		}
	}
	v.lines[t] = &l
}

// A lockstep run of the showcase: every contact frame drives the pins
// under the fingertip model's patch round the contact point, as tactile.csv
// records it (the patch from the normal force by the model's formula, the
// pins inside its ellipse, none of 0.01 N or more driving none), the
// recorded summary is the driven pins', and the delivered amplitudes beside
// the commanded ones are what each pin of the simulated arrays vibrated
// with over that frame, within 5 % (here: its trace's 40 and 320 Hz
// lines). The showcase's contacts end 8.7 s in.
func TestTactileRecord(t *testing.T) {
	var arrays [sim.NumFingers]*vibrometer
	cfg := coarse(Config{OutDir: t.TempDir(), Duration: 9 * time.Second})
	for f := range arrays {
		arrays[f] = newVibrometer(t, f)
		cfg.Tactile[f] = arrays[f]
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.RunLockstep(); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(r.SessionDir(), "tactile.csv"))
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	num := func(row []string, name string) float64 {
		i, ok := col[name]
		if !ok {
			t.Fatalf("tactile.csv has no column %s", name)
		}
		v, err := strconv.ParseFloat(row[i], 64)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return v
	}
	period := cfg.TactilePeriod
	if period == 0 {
		period = 25 * time.Millisecond
	}
	var contacts, pressed, measured int
	var worst float64
	var tip tactile.Fingertip
	for i, row := range rows[1:] {
		tm := time.Duration(math.Round(num(row, "t_s") * 1e9))
		for f := range sim.NumFingers {
			n := sim.FingerName(f) + "_"
			pin := func(band string, p int, kind string) float64 {
				return num(row, n+band+"_pin"+twoDigits(p)+kind+"_um")
			}
			// Delivered: the pins' vibration over the frame, read when the
			// next one began; the last frame's was never read.
			lines, ok := arrays[f].lines[tm+period]
			if i == len(rows)-2 {
				if !math.IsNaN(pin("a40", 0, "_delivered")) {
					t.Errorf("last frame: delivered %g, want NaN (not measured)", pin("a40", 0, "_delivered"))
				}
				ok = false
			}
			if ok {
				// The simulated array's measurement is of the row's own frame.
				if seq, ds := row[col["seq"]], row[col[n+"delivered_seq"]]; seq != ds || seq != strconv.Itoa(i+1) {
					t.Errorf("%.3f s %s: frame %s (row %d), delivered of frame %q", tm.Seconds(), n, seq, i+1, ds)
				}
				for p := range tactile.Pins {
					for k, band := range [2]string{"a40", "a320"} {
						got, want := pin(band, p, "_delivered"), lines[k][p]
						if d := math.Abs(got - want); d > 0.05*want+1e-6 {
							t.Errorf("%.3f s %s pin %d: %s delivered %g µm in the record, the pin vibrated with %g µm", tm.Seconds(), n, p, band, got, want)
						}
						if want > 0.1 {
							worst = math.Max(worst, math.Abs(got/want-1))
							measured++
						}
					}
				}
			}
			if num(row, n+"contact") != 1 {
				continue
			}
			contacts++
			force := num(row, n+"normal_force_n")
			patch := tip.Patch(force, num(row, n+"curvature_1pm"))
			a, b := num(row, n+"patch_a_m"), num(row, n+"patch_b_m")
			if math.Abs(a-patch.A) > 1e-12 || math.Abs(b-patch.B) > 1e-12 {
				t.Errorf("%.3f s %s: patch %g x %g m recorded, the model gives %g x %g m at %g N", tm.Seconds(), n, a, b, patch.A, patch.B, force)
			}
			padD, padL := num(row, n+"pad_d_m"), num(row, n+"pad_l_m")
			var want, driven int
			var sum40 float64
			for p := range tactile.Pins {
				d := (float64(tactile.Rows-1)/2 - float64(p/tactile.Cols)) * 2e-3
				l := (float64(p%tactile.Cols) - float64(tactile.Cols-1)/2) * 2e-3
				if a > 0 && math.Pow((d-padD)/a, 2)+math.Pow((l-padL)/b, 2) < 1 {
					want++
				}
				if pin("a40", p, "") > 0 || pin("a320", p, "") > 0 {
					driven++
					sum40 += pin("a40", p, "") * pin("a40", p, "")
				}
			}
			slip := math.Hypot(num(row, n+"slip_u_mps"), num(row, n+"slip_v_mps"))
			if slip > 0 && driven != want || int(num(row, n+"driven_pins")) != driven || int(num(row, n+"active_pins")) != want {
				t.Errorf("%.3f s %s at %.4f N: %d pins driven (recorded %g), %d under the patch (recorded %g)",
					tm.Seconds(), n, force, driven, num(row, n+"driven_pins"), want, num(row, n+"active_pins"))
			}
			if force >= 0.01 {
				pressed++
				if driven == 0 {
					t.Errorf("%.3f s %s: %.4f N drives no pin", tm.Seconds(), n, force)
				}
			}
			if driven > 0 {
				if rms := math.Sqrt(sum40 / float64(driven)); math.Abs(num(row, n+"a40_rms_um")-rms) > 1e-9*rms {
					t.Errorf("%.3f s %s: summary %g µm at 40 Hz, the driven pins' RMS %g µm", tm.Seconds(), n, num(row, n+"a40_rms_um"), rms)
				}
			}
			if c := num(row, n+"clamped_pins"); c != 0 {
				t.Errorf("%.3f s %s: %g pin amplitudes clamped", tm.Seconds(), n, c)
			}
		}
	}
	t.Logf("%d finger frames in contact, %d of 0.01 N or more; %d delivered amplitudes above 0.1 µm within %.2g of the pins' vibration",
		contacts, pressed, measured, worst)
	if contacts < 100 || pressed < 50 || measured < 1000 {
		t.Errorf("the run should press the cloth often: %d contact frames, %d of 0.01 N or more, %d amplitudes measured", contacts, pressed, measured)
	}
}

func twoDigits(p int) string {
	if p < 10 {
		return "0" + strconv.Itoa(p)
	}
	return strconv.Itoa(p)
}
