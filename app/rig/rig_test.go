package rig

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/rt"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// coarse is a rig configuration with a 12 x 12-node cloth: every loop and
// device as in a real run, small enough for the race detector.
func coarse(c Config) Config {
	c.Sim = sim.Config{NodesU: 12, NodesV: 12}
	return c
}

// runLockstep runs a recorded lockstep session and returns its folder.
func runLockstep(t *testing.T, d time.Duration) (string, *Summary) {
	t.Helper()
	r, err := New(coarse(Config{OutDir: t.TempDir(), Duration: d}))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.RunLockstep()
	if err != nil {
		t.Fatal(err)
	}
	return r.SessionDir(), sum
}

// A lockstep session has one haptics row per millisecond of virtual time,
// none dropped, and a session.json that reports it; a second run of the
// same configuration writes bit-identical records. The session is 10 s;
// 3 s under -short and the race detector (the index finger touches the
// cloth from 1.4 s on).
func TestLockstepSession(t *testing.T) {
	d := 10 * time.Second
	if testing.Short() || raceEnabled {
		d = 3 * time.Second
	}
	a, sum := runLockstep(t, d)
	t.Run("record", func(t *testing.T) {
		n := int(d / time.Millisecond)
		rows := readCSV(t, filepath.Join(a, "haptics.csv"))
		if len(rows) != n+1 {
			t.Fatalf("%d rows (with header), want %d", len(rows), n+1)
		}
		var meta struct {
			Summary Summary `json:"summary"`
		}
		b, err := os.ReadFile(filepath.Join(a, "session.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			t.Fatal(err)
		}
		if meta.Summary.Tables[0].Rows != uint64(n) || meta.Summary.Tables[0].Dropped != 0 || sum.Mode != "lockstep" {
			t.Fatalf("session.json summary: %+v", meta.Summary.Tables)
		}
		if meta.Summary.Clock != nil {
			t.Errorf("a lockstep run, in virtual time, has a clock origin %+v", meta.Summary.Clock)
		}
	})
	t.Run("summary", func(t *testing.T) {
		// What each finger felt is read back from haptics.csv: the force
		// its sensor measured, and beside it the force the cloth asked for.
		rows := readCSV(t, filepath.Join(a, "haptics.csv"))
		col := map[string]int{}
		for i, h := range rows[0] {
			col[h] = i
		}
		norm := func(r []string, f, q string) float64 {
			var v [3]float64
			for k, c := range []string{"x", "y", "z"} {
				x, err := strconv.ParseFloat(r[col[f+"_"+q+"_"+c+"_n"]], 64)
				if err != nil {
					t.Fatal(err)
				}
				v[k] = x
			}
			return vec3.Norm(v)
		}
		type figures struct{ contact, peak, mean, peakDes, meanDes float64 }
		var want [sim.NumFingers]figures
		var pinch, pinchDes float64
		for _, r := range rows[1:] {
			both := true
			var peak, peakDes float64
			for f := range want {
				name, w := sim.FingerName(f), &want[f]
				m, md := norm(r, name, "fmeas"), norm(r, name, "fdes")
				w.peak, w.peakDes = max(w.peak, m), max(w.peakDes, md)
				peak, peakDes = max(peak, m), max(peakDes, md)
				if r[col[name+"_contact"]] != "1" {
					both = false
					continue
				}
				w.contact++
				w.mean += m
				w.meanDes += md
			}
			if both {
				pinch, pinchDes = max(pinch, peak), max(pinchDes, peakDes)
			}
		}
		// The table's 7 digits a component.
		near := func(got, want float64) bool { return math.Abs(got-want) <= 2e-6*max(want, 0.01) }
		for f, fs := range sum.Fingers {
			w := want[f]
			if w.contact > 0 {
				w.mean /= w.contact
				w.meanDes /= w.contact
			}
			if !near(fs.PeakForceN, w.peak) || !near(fs.MeanForceN, w.mean) || !near(fs.PeakForceDesN, w.peakDes) || !near(fs.MeanForceDesN, w.meanDes) {
				t.Errorf("%s: summary peak %.6g mean %.6g N measured, %.6g %.6g asked; haptics.csv gives %.6g %.6g, %.6g %.6g",
					fs.Finger, fs.PeakForceN, fs.MeanForceN, fs.PeakForceDesN, fs.MeanForceDesN, w.peak, w.mean, w.peakDes, w.meanDes)
			}
		}
		if want[sim.IndexFinger].contact == 0 {
			t.Fatal("the index finger never touched the cloth")
		}
		if !near(sum.PeakPinchN, pinch) || !near(sum.PeakPinchDesN, pinchDes) {
			t.Errorf("summary peak pinch %.6g N measured, %.6g asked; haptics.csv gives %.6g, %.6g", sum.PeakPinchN, sum.PeakPinchDesN, pinch, pinchDes)
		}
	})
	t.Run("deterministic", func(t *testing.T) {
		b, _ := runLockstep(t, d)
		for _, name := range []string{"haptics.csv", "sim.csv", "tactile.csv"} {
			x, err := os.ReadFile(filepath.Join(a, name))
			if err != nil {
				t.Fatal(err)
			}
			y, err := os.ReadFile(filepath.Join(b, name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(x, y) {
				t.Fatalf("%s differs between two lockstep runs (%d vs %d bytes)", name, len(x), len(y))
			}
		}
	})
}

// The haptics tick allocates nothing.
func TestHapticsTickAllocs(t *testing.T) {
	r, err := New(coarse(Config{OutDir: t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	defer r.session.Close()
	tick := time.Duration(0)
	if a := testing.AllocsPerRun(1000, func() {
		tick += time.Millisecond
		r.haptics.step(tick)
	}); a != 0 {
		t.Fatalf("haptics tick allocates %v times", a)
	}
}

// A short real-time run starts every loop, stops on time and records what
// it ran. Timing figures are not asserted (the machine is shared).
func TestRealtimeRun(t *testing.T) {
	r, err := New(coarse(Config{OutDir: t.TempDir(), Duration: 500 * time.Millisecond, NormalPriority: true}))
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c := sum.Clock; c == nil || c.UTC.Before(before) || c.UTC.After(time.Now()) || c.UTC.Location() != time.UTC {
		t.Errorf("clock origin %+v, not in UTC during the run", c)
	}
	// How many ticks fit in 0.5 s depends on the machine (23 of 500 were
	// seen under -race on a host stealing CPU time); every loop must have
	// run, and every haptics tick must be on record.
	for _, l := range sum.Loops {
		if l.Ticks == 0 {
			t.Errorf("loop %s never ran", l.Name)
		}
	}
	h := sum.Loops[0]
	if sum.Tables[0].Rows != h.Ticks || sum.Tables[0].Dropped != 0 {
		t.Fatalf("haptics ran %d ticks, recorded %d rows, dropped %d", h.Ticks, sum.Tables[0].Rows, sum.Tables[0].Dropped)
	}
	if sum.RunS < 0.5 || sum.RunS > 1.5 {
		t.Errorf("run time %.3f s for a 0.5 s run", sum.RunS)
	}
	if _, err := os.Stat(filepath.Join(r.SessionDir(), "session.json")); err != nil {
		t.Fatal(err)
	}
	checkLateTicks(t, filepath.Join(r.SessionDir(), "haptics.csv"), h)
}

// In a real-time run on the simulated twins the cloth's thread runs off
// the haptics standby's core (rt.Config.OffStandby), and the summary says
// so for that loop alone; and the runtime's monitor rests (every loop
// thread passes through the scheduler: "The runtime's monitor" in
// internal/rt's package doc), as monitor_passes_per_s says.
func TestClothOffStandby(t *testing.T) {
	r, err := New(coarse(Config{OutDir: t.TempDir(), Duration: 300 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Loops[0].Standby {
		t.Skip("no standby thread (it needs SCHED_FIFO and two cores)")
	}
	for _, l := range sum.Loops {
		if want := l.Name == "sim"; l.OffStandby != want {
			t.Errorf("loop %s: off_standby %v, want %v", l.Name, l.OffStandby, want)
		}
	}
	// At rest the monitor passes about a hundred times a second; a loop
	// that never went through the scheduler kept it at 10,000 here.
	if m := sum.MonitorPassesPerS; m <= 0 || m > 2000 {
		t.Errorf("the runtime's monitor passed %.0f times a second, want 1-2,000", m)
	}
	t.Logf("the runtime's monitor passed %.0f times a second", sum.MonitorPassesPerS)
}

// checkLateTicks checks a loop's list of late ticks against its CSV: the
// list holds the first of the ticks whose lateness column exceeds 1 ms,
// with the same times and lateness. A machine that ran no tick late checks
// only that the list is empty.
func checkLateTicks(t *testing.T, csvPath string, l LoopSummary) {
	t.Helper()
	rows := readCSV(t, csvPath)
	col := slices.Index(rows[0], "lateness_us")
	defer func() { t.Logf("%d ticks later than 1 ms, %d listed", l.LateOver1ms, len(l.LateTicks)) }()
	var want []LateTick
	for _, row := range rows[1:] {
		ts, err1 := strconv.ParseFloat(row[0], 64)
		us, err2 := strconv.ParseFloat(row[col], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("row %q: %v %v", row[:3], err1, err2)
		}
		if us > 1000 {
			want = append(want, LateTick{TS: ts, LatenessUs: us})
		}
	}
	if uint64(len(want)) != l.LateOver1ms || len(l.LateTicks) != min(len(want), rt.MaxLateTicks) {
		t.Fatalf("%d late ticks in the CSV; the summary counts %d and lists %d", len(want), l.LateOver1ms, len(l.LateTicks))
	}
	for i, g := range l.LateTicks {
		// The CSV's lateness has 1 ns resolution.
		if math.Abs(g.TS-want[i].TS) > 1e-9 || math.Abs(g.LatenessUs-want[i].LatenessUs) > 1e-3 {
			t.Errorf("late tick %d: summary %+v, CSV %+v", i, g, want[i])
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{
		{TactilePeriod: time.Millisecond},
		{HapticsPeriod: time.Second},
		{Duration: -time.Second},
		{Standby: 600 * time.Microsecond},
		{Priority: -1},
		{Standby: -time.Microsecond},
		{SimNice: -1},
	} {
		if _, err := New(c); err == nil {
			t.Errorf("config %+v: no error", c)
		}
	}
}

// Config reports the defaults New filled in, and SplitsStep whether the
// default cloth is large enough to split over the cores there are.
func TestConfigInEffect(t *testing.T) {
	r, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Config()
	if c.HapticsPeriod != time.Millisecond || c.Standby != DefaultStandby || c.SimNice != DefaultSimNice ||
		c.Sim.NodesU != DefaultSide || c.Fabric == nil || c.Fabric.Name != DefaultFabric {
		t.Errorf("config in effect %+v", c)
	}
	if want := runtime.GOMAXPROCS(0) >= 2; r.SplitsStep() != want {
		t.Errorf("%d² nodes on %d Ps: splits %v", DefaultSide, runtime.GOMAXPROCS(0), r.SplitsStep())
	}
}

// A zero value is its default; "off" is a field of its own, and a value
// it turns off is not checked.
func TestConfigDefaults(t *testing.T) {
	for _, c := range []struct {
		cfg               Config
		priority, simNice int
		standby           time.Duration
	}{
		{Config{}, DefaultPriority, DefaultSimNice, DefaultStandby},
		{Config{Priority: 20, Standby: 100 * time.Microsecond, SimNice: 5}, 20, 5, 100 * time.Microsecond},
		{Config{NormalPriority: true, NoStandby: true, ProcessNice: true}, 0, 0, 0},
		{Config{Priority: -1, NormalPriority: true, Standby: -1, NoStandby: true, SimNice: -1, ProcessNice: true}, 0, 0, 0},
	} {
		cfg := c.cfg
		if err := cfg.setDefaults(); err != nil {
			t.Fatalf("%+v: %v", c.cfg, err)
		}
		if p, n, s := cfg.EffectivePriority(), cfg.EffectiveSimNice(), cfg.EffectiveStandby(); p != c.priority || n != c.simNice || s != c.standby {
			t.Errorf("%+v: priority %d, nice %d, standby %v; want %d, %d, %v", c.cfg, p, n, s, c.priority, c.simNice, c.standby)
		}
	}
}

// An interval measures what the devices delivered: over the showcase
// script both fingers touch the cloth, the pads squeeze it in the pinch,
// and the force the sensors measured stays close to the force the servo
// asked for (the device is transparent). A second interval restarts the
// script where the first ended, without a jump.
func TestIntervalStats(t *testing.T) {
	r, err := New(coarse(Config{}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Lockstep()
	if err != nil {
		t.Fatal(err)
	}
	measure := func(d time.Duration) IntervalStats {
		if err := r.BeginInterval(); err != nil {
			t.Fatal(err)
		}
		s.Advance(d)
		c, err := r.EndInterval()
		if err != nil {
			t.Fatal(err)
		}
		s.Advance(30 * time.Millisecond) // one tick of each loop runs the command
		return <-c
	}
	for i := range 2 {
		iv := measure(10 * time.Second)
		if iv.PinchS < 0.5 || iv.ContactS[1] < 3 || !(iv.MinPadGapM < 0.0005) {
			t.Fatalf("interval %d: pinch %.3f s, index contact %.3f s, smallest pad gap %g m", i, iv.PinchS, iv.ContactS[1], iv.MinPadGapM)
		}
		for f := range 2 {
			if iv.PeakForceDesN[f] < 0.05 || iv.PeakForceN[f] > iv.PeakForceDesN[f]+0.15 {
				t.Fatalf("interval %d finger %d: peak force %.3f N measured, %.3f N desired", i, f, iv.PeakForceN[f], iv.PeakForceDesN[f])
			}
			if iv.MeanA40Um[f] <= 0 || iv.DeliveredA40Um[f] <= 0 {
				t.Fatalf("interval %d finger %d: tactile %g µm sent, %g µm delivered", i, f, iv.MeanA40Um[f], iv.DeliveredA40Um[f])
			}
		}
		if iv.DurationS < 9.99 || iv.DurationS > 10.01 || iv.TactileFrames < 399 {
			t.Fatalf("interval %d: duration %.3f s, %d tactile frames", i, iv.DurationS, iv.TactileFrames)
		}
		t.Logf("handling interval %d: %+v", i, iv)
	}
	if _, err := s.Finish(); err != nil {
		t.Fatal(err)
	}
}

// toneInterval builds a coarse rig of cfg in lockstep and measures one
// 300 ms interval of a test tone (20 µm at 40 Hz, 2 µm at 320 Hz) on every
// pin.
func toneInterval(t *testing.T, cfg Config) (*Rig, IntervalStats) {
	t.Helper()
	r, err := New(coarse(cfg))
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Lockstep()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetTone(&Tone{A40Um: 20, A320Um: 2}); err != nil {
		t.Fatal(err)
	}
	if err := r.BeginInterval(); err != nil {
		t.Fatal(err)
	}
	s.Advance(300 * time.Millisecond)
	c, _ := r.EndInterval()
	s.Advance(30 * time.Millisecond)
	return r, <-c
}

// A test tone replaces the rendered fabric on every pin of both arrays;
// the simulated arrays deliver it within their pin spread.
func TestTone(t *testing.T) {
	r, iv := toneInterval(t, Config{})
	for f := range 2 {
		if iv.MeanA40Um[f] != 20 || iv.MeanA320Um[f] != 2 {
			t.Fatalf("finger %d sent %g / %g µm, want 20 / 2", f, iv.MeanA40Um[f], iv.MeanA320Um[f])
		}
		// 24 pins with a 1 dB spread: the mean is within ±1 dB easily.
		if math.Abs(20*math.Log10(iv.DeliveredA40Um[f]/20)) > 1 {
			t.Fatalf("finger %d delivered %g µm at 40 Hz for 20", f, iv.DeliveredA40Um[f])
		}
	}
	if err := r.SetTone(&Tone{A40Um: math.NaN()}); err == nil {
		t.Fatal("NaN tone accepted")
	}
	// Above an array's limits (the simulated one's 200 µm at 40 Hz, 30 µm
	// at 320 Hz) it would clip: refused unless the tone spares that finger.
	for _, tc := range []struct {
		tone Tone
		ok   bool
	}{
		{Tone{A40Um: 200, A320Um: 30}, true},
		{Tone{A320Um: 31}, false},
		{Tone{A40Um: 201}, false},
		{Tone{A320Um: 31, Silent: [2]bool{true, true}}, true},
		{Tone{A320Um: 31, Silent: [2]bool{true, false}}, false},
	} {
		err := r.SetTone(&tc.tone)
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrAboveLimit)) {
			t.Errorf("tone %+v: %v", tc.tone, err)
		}
	}
}

// deadPins is the simulated array with contactors that do not move.
type deadPins struct {
	*twin.Tactile
	dead []int
}

func (a deadPins) Delivered(dst *devices.TactileFrame) bool {
	a.Tactile.Delivered(dst)
	for _, p := range a.dead {
		dst.A40Um[p], dst.A320Um[p] = 0, 0
	}
	return true
}

// An interval's delivered amplitude counts a driven pin that did not move:
// a tone on every pin of a thumb array with 6 of its 24 contactors dead
// delivers three quarters of what the index's array delivers.
func TestToneDeadPins(t *testing.T) {
	var cfg Config
	thumb, err := twin.NewTactile(twin.DefaultTactileParams(), sim.Thumb)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Tactile[sim.Thumb] = deadPins{thumb, []int{0, 5, 9, 14, 18, 23}}
	_, iv := toneInterval(t, cfg)
	// Within 0.7 dB of three quarters: the pins' spread (1 dB SD) left by
	// their calibration.
	for _, ch := range []struct {
		name         string
		thumb, index float64
	}{{"40 Hz", iv.DeliveredA40Um[sim.Thumb], iv.DeliveredA40Um[sim.IndexFinger]}, {"320 Hz", iv.DeliveredA320Um[sim.Thumb], iv.DeliveredA320Um[sim.IndexFinger]}} {
		r := ch.thumb / ch.index
		t.Logf("%s: thumb %.4g µm, index %.4g µm, ratio %.3f", ch.name, ch.thumb, ch.index, r)
		if math.Abs(20*math.Log10(r/0.75)) > 0.7 {
			t.Errorf("%s: the thumb's array, a quarter of its pins dead, delivered %.3g µm against the index's %.3g (ratio %.3f, want 0.75)", ch.name, ch.thumb, ch.index, r)
		}
	}
}

// Restarting or changing the motion never makes the intended finger
// position jump: it blends from where the finger was heading.
func TestReplayIntentIsContinuous(t *testing.T) {
	sc := twin.DefaultScene()
	r := &replayIntent{inner: twin.DefaultScript(sc)}
	const step = time.Millisecond
	var prev [2][3]float64
	for f := range 2 {
		prev[f], _ = r.At(0, f)
	}
	for tt := step; tt < 12*time.Second; tt += step {
		switch tt {
		case 1700 * time.Millisecond: // mid-stroke: restart the script
			r.restart(tt, nil)
		case 6 * time.Second: // mid-pinch: switch to the short pinch motion
			r.restart(tt, twin.PinchScript(sc))
		case 7 * time.Second:
			r.restart(tt, twin.RestScript(sc))
		}
		for f := range 2 {
			p, _ := r.At(tt, f)
			// A blend back over 5.5 cm in 0.3 s peaks at 0.34 m/s; a jump
			// would move the whole distance in one millisecond.
			if d := vec3.Norm([3]float64{p[0] - prev[f][0], p[1] - prev[f][1], p[2] - prev[f][2]}); d > 1e-3 {
				t.Fatalf("finger %d jumps %.2f mm at %v", f, d*1e3, tt)
			}
			prev[f] = p
		}
	}
}

// readCSV reads a whole CSV table, header row first.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
