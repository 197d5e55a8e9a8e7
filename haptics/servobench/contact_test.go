package servobench

import (
	"math"
	"testing"
	"time"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// TestRenderedStiffness: springs of 300 and 1,000 N/m and the cloth's
// local model in a pinch are felt within 5 % of what was asked, and the
// contact holds still.
func TestRenderedStiffness(t *testing.T) {
	cfg, p := haptics.DefaultConfig(), twin.DefaultExoParams()
	n := vec3.Scale(-1, pressDir(sim.IndexFinger))
	cloth, err := clothPinchStiffness(12)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		model string
		k     [3][3]float64
	}{{"spring", springMatrix(300, n)}, {"spring", springMatrix(1000, n)}, {"cloth local model", cloth}} {
		sp, err := runStiffness(cfg, p, tc.model, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v", sp)
		if math.Abs(sp.ErrPct) > 5 || sp.HFRMSUm > 20 {
			t.Errorf("%s of %.0f N/m felt as %.0f N/m (%.1f %%), motion above 20 Hz %.1f µm RMS", tc.model, sp.AskedNpm, sp.FeltNpm, sp.ErrPct, sp.HFRMSUm)
		}
	}
}

// TestStiffSpringBelowForceBound: the stiffest spring the bench asks
// about (3,000 N/m) is pressed no deeper than the rendered force's bound
// allows, so its felt stiffness is the loop's and not the bound's: at the
// old depths it asked 6 N of the 5 N bound and read 7 % soft, with a 10 N
// bound 0.3 %.
func TestStiffSpringBelowForceBound(t *testing.T) {
	cfg, p := haptics.DefaultConfig(), twin.DefaultExoParams()
	bound := cfg.Safety.ForceBound(p.Rating.MaxForceCont)
	sp, err := runStiffness(cfg, p, "spring", springMatrix(3000, vec3.Scale(-1, pressDir(sim.IndexFinger))))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v (bound %.3g N)", sp, bound)
	if sp.PeakN > 0.85*bound || sp.PeakN < 0.6*bound {
		t.Errorf("the deepest step's force %.3g N, want 0.6-0.85 of the %.3g N bound", sp.PeakN, bound)
	}
	if math.Abs(sp.ErrPct) > 5 || sp.HFRMSUm > 20 {
		t.Errorf("3,000 N/m felt as %.0f N/m (%.1f %%), motion above 20 Hz %.1f µm RMS", sp.FeltNpm, sp.ErrPct, sp.HFRMSUm)
	}
}

// TestWallStability: the Z-width criterion tells a soft wall the loop
// holds from a stiff one it cannot (the latter bounces by hundreds of µm).
func TestWallStability(t *testing.T) {
	cfg, p := haptics.DefaultConfig(), twin.DefaultExoParams()
	for _, tc := range []struct {
		k    float64
		want bool
	}{{100, true}, {8000, false}} {
		ok, err := wallStable(cfg, p, tc.k, 0)
		if err != nil {
			t.Fatal(err)
		}
		if ok != tc.want {
			t.Errorf("wall of %g N/m: stable %v, want %v", tc.k, ok, tc.want)
		}
	}
}

// TestUnstableWallEngagesPassivity: walls past the Z-width boundary at
// B = 0 bounce off the finger without the passivity controller (hundreds
// of µm above 5 Hz) and feed its observer until it acts; a wall inside
// the boundary never does.
func TestUnstableWallEngagesPassivity(t *testing.T) {
	p := twin.DefaultExoParams()
	for _, k := range []float64{3000, 7000, 10000} {
		on, err := runWall(haptics.DefaultConfig(), p, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		cfg := haptics.DefaultConfig()
		cfg.Passivity.Enabled = false
		off, err := runWall(cfg, p, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%g N/m: with the controller %d damped ticks, lowest energy %.3g J, %.1f µm above 5 Hz; without %.1f µm", k, on.DampedTicks, on.MinEnergyJ, 1e6*on.HFRMSM, 1e6*off.HFRMSM)
		bounces := off.HFRMSM > 100e-6
		if bounces != (k > 5000) {
			t.Errorf("%g N/m without the controller: %.1f µm RMS above 5 Hz", k, 1e6*off.HFRMSM)
		}
		if (on.DampedTicks > 0) != bounces {
			t.Errorf("%g N/m: the controller acted in %d ticks, the wall without it moves %.1f µm", k, on.DampedTicks, 1e6*off.HFRMSM)
		}
	}
}

// TestStretchCompensation: pressing with 1 N, the cable stretches by about
// a milliradian; located from the motor encoders alone the pad is some
// 60 µm off, corrected by the stretch under the link's load it is within
// 25 µm (what remains is the links' own weight on the cables and the
// encoders' resolution).
func TestStretchCompensation(t *testing.T) {
	for _, tc := range []struct {
		kt      [3]float64
		lo, hi  float64 // [m]
		comment string
	}{
		{[3]float64{}, 40e-6, 1, "from the motor encoders alone"},
		{twin.DefaultExoParams().Drive.TransmissionStiffness, 0, 25e-6, "stretch compensated"},
	} {
		cfg := haptics.DefaultConfig()
		cfg.Drive.TransmissionStiffness = tc.kt
		r := newHoldRig(t, cfg)
		pressBoth(r)
		for f := range sim.NumFingers {
			d := vec3.Norm(vec3.Sub(r.out.Fingers[f].Pos, r.exos[f].Truth().Pad))
			t.Logf("%s, %s: the servo's pad is %.1f µm from the true pad", sim.FingerName(f), tc.comment, d*1e6)
			if d < tc.lo || d > tc.hi {
				t.Errorf("%s, %s: pad %.1f µm off, want %.0f..%.0f µm", sim.FingerName(f), tc.comment, d*1e6, tc.lo*1e6, tc.hi*1e6)
			}
		}
	}
}

// TestContactOnset: the finger pressing into a 1,000 N/m wall at 5 cm/s,
// the force follows the wall's better in the first 300 ms when the
// admittance does not carry its approach speed into the wall (onset stop
// and contact damping) than when it does.
func TestContactOnset(t *testing.T) {
	p := twin.DefaultExoParams()
	rms := func(stop bool, tau float64) float64 {
		cfg := haptics.DefaultConfig()
		cfg.Force.OnsetStop, cfg.Force.ContactTau = stop, tau
		press := func(t time.Duration) float64 { return -0.005 + 0.05*math.Max(0, math.Min(0.26, t.Seconds()-0.4)) }
		dur := 1200 * time.Millisecond
		r, w, err := wallRig(cfg, p, springMatrix(1000, vec3.Scale(-1, pressDir(sim.IndexFinger))), 0, press, dur)
		if err != nil {
			t.Fatal(err)
		}
		f := sim.IndexFinger
		var t0 time.Duration
		var e2, n float64
		for r.t < dur {
			w.update(r.t, &r.out, &r.in.Local[f], f)
			r.tick()
			fr := &r.rec.Fingers[f]
			if fr.Contact && t0 == 0 {
				t0 = r.t
			}
			if t0 > 0 && r.t-t0 < 300*time.Millisecond {
				e := vec3.Dot(vec3.Sub(fr.ForceDes, fr.ForceMeas), w.n)
				e2 += e * e
				n++
			}
		}
		return math.Sqrt(e2 / n)
	}
	carried, stopped := rms(false, 0), rms(true, haptics.DefaultConfig().Force.ContactTau)
	t.Logf("RMS error over the first 300 ms of contact: %.3f N carrying the approach speed, %.3f N without", carried, stopped)
	if !(stopped < 0.8*carried) {
		t.Errorf("onset stop and contact damping: RMS error %.3f N, carrying the approach speed %.3f N", stopped, carried)
	}
}

// TestStiffnessLimitInsideZWidth: the servo's default limit on a local
// model's stiffness leaves the 2x margin to the stable boundary: a wall
// twice as stiff is still stable.
func TestStiffnessLimitInsideZWidth(t *testing.T) {
	cfg, p := haptics.DefaultConfig(), twin.DefaultExoParams()
	ok, err := wallStable(cfg, p, 2*cfg.Model.MaxStiffness, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Errorf("a wall of twice the limit, %.0f N/m, is not stable", 2*cfg.Model.MaxStiffness)
	}
}

// TestRandomPinchSurvey: the embedded survey holds one stiffness per
// trajectory, and its summary figures agree with them.
func TestRandomPinchSurvey(t *testing.T) {
	r, err := RandomPinches()
	if err != nil {
		t.Fatal(err)
	}
	largest := 0.0
	for _, k := range r.MaxNpm {
		if !(k > 0) {
			t.Fatalf("a trajectory asks for %g N/m", k)
		}
		largest = max(largest, k)
	}
	if r.Trajectories != 1000 || largest != r.LargestNpm || !(r.P50Npm <= r.P99Npm && r.P99Npm <= r.LargestNpm) {
		t.Errorf("%d trajectories, largest %g (listed %g), median %g, 99th percentile %g", r.Trajectories, largest, r.LargestNpm, r.P50Npm, r.P99Npm)
	}
}
