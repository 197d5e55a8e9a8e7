package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/sim"
)

// faultyArray is the simulated tactile array behind a fault that start
// begins: its next n frames fail to be written (the array gone, as a
// serial array's link reports it) or, silenced, are written while its
// status says it has silenced itself (its watchdog). n < 0: every frame
// from then on.
type faultyArray struct {
	*twin.Tactile
	mu       sync.Mutex
	left     int
	silenced bool
	silent   bool // the newest frame met the silenced fault
	faults   int  // frames that met a fault
}

func (a *faultyArray) start(n int, silenced bool) {
	a.mu.Lock()
	a.left, a.silenced = n, silenced
	a.mu.Unlock()
}

func (a *faultyArray) WriteFrame(f *devices.TactileFrame) error {
	a.mu.Lock()
	fault := a.left != 0
	if fault {
		a.faults++
		if a.left > 0 {
			a.left--
		}
	}
	a.silent = fault && a.silenced
	a.mu.Unlock()
	if fault && !a.silenced {
		return devices.ErrDisconnected
	}
	return a.Tactile.WriteFrame(f)
}

func (a *faultyArray) Status(dst *devices.TactileStatus) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	*dst = devices.TactileStatus{Active: !a.silent}
	return nil
}

// errEnough stops a run once a test has seen what it needs.
var errEnough = errors.New("enough trials for the test")

// A trial whose stimulus a tactile array did not confirm is not answered
// or recorded: it is presented again, and a run whose array stays away
// stops after three presentations with its trials saved, to be resumed.
// Injected between the rig and the simulated index array after the
// second trial: a loss of 40 frames (1 s, over the next trial's first
// interval), the array's watchdog for as long, and a loss that lasts.
func TestUndeliveredTrialPresentedAgain(t *testing.T) {
	newArray := func(t *testing.T) *faultyArray {
		a, err := twin.NewTactile(twin.DefaultTactileParams(), sim.IndexFinger)
		if err != nil {
			t.Fatal(err)
		}
		return &faultyArray{Tactile: a}
	}
	runWith := func(t *testing.T, dir string, a *faultyArray, after func(int) error) (*Result, string, error) {
		e, err := Parse([]byte(small), "exp.toml")
		if err != nil {
			t.Fatal(err)
		}
		cfg := rig.Config{Scripted: true}
		cfg.Tactile[sim.IndexFinger] = a
		var out bytes.Buffer
		res, err := Run(context.Background(), Options{Experiment: e, Source: []byte(small), Path: "exp.toml", Subject: "sim01", OutDir: dir, Out: &out,
			Observers: []*psych.Observer{observer(t)}, AfterTrial: after, Rig: cfg, SkipStimulusCheck: true})
		return res, out.String(), err
	}
	rows := func(t *testing.T, dir string) int {
		b, err := os.ReadFile(filepath.Join(dir, "level-test", "sim01", "trials.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Count(b, []byte("\n")) - 1
	}
	for _, tc := range []struct {
		name     string
		frames   int
		silenced bool
		want     string
	}{
		{"lost for a second", 40, false, "frames not confirmed by the index tactile array): presented again"},
		{"its watchdog for a second", 40, true, "frames not confirmed by the index tactile array): presented again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newArray(t)
			dir := t.TempDir()
			_, out, err := runWith(t, dir, a, func(n int) error {
				if n == 2 {
					a.start(tc.frames, tc.silenced)
				}
				if n == 4 {
					return errEnough
				}
				return nil
			})
			if !errors.Is(err, errEnough) {
				t.Fatalf("%v\n%s", err, out)
			}
			if !strings.Contains(out, "trial 3 not delivered (interval 1: ") || !strings.Contains(out, tc.want) {
				t.Errorf("printed %q, want trial 3 presented again", out)
			}
			if rows(t, dir) != 4 || a.faults != tc.frames {
				t.Errorf("%d rows, %d frames faulted; want 4 and %d", rows(t, dir), a.faults, tc.frames)
			}
		})
	}
	t.Run("gone", func(t *testing.T) {
		a := newArray(t)
		dir := t.TempDir()
		_, out, err := runWith(t, dir, a, func(n int) error {
			if n == 2 {
				a.start(-1, false)
			}
			return nil
		})
		if !errors.Is(err, ErrNotDelivered) || !strings.Contains(err.Error(), "trial 3: stimulus not delivered in 3 presentations (interval 1: ") ||
			!strings.Contains(err.Error(), "the 2 completed trials are saved (resume with the same command once the devices are back, or fixed)") {
			t.Fatalf("an array that stays away: %v", err)
		}
		if n := strings.Count(out, "trial 3 not delivered"); n != 2 || rows(t, dir) != 2 {
			t.Errorf("trial 3 presented again %d times, %d rows on disk; want 2 and 2\n%s", n, rows(t, dir), out)
		}
		// Back: the run resumes at trial 3.
		_, out, err = runWith(t, dir, newArray(t), func(n int) error {
			if n == 3 {
				return errEnough
			}
			return nil
		})
		if !errors.Is(err, errEnough) || rows(t, dir) != 3 {
			t.Fatalf("resumed: %v, %d rows\n%s", err, rows(t, dir), out)
		}
	})
}

// undelivered names each interval and finger whose stimulus did not reach
// the devices it needs in full, and nothing when all did; a tone's does
// not depend on the exoskeletons, nor on the array of the finger it
// leaves silent.
func TestUndelivered(t *testing.T) {
	ok := rig.IntervalStats{DurationS: 0.3, TactileFrames: 12}
	safe := ok
	safe.SafeS[sim.Thumb] = 0.05
	lost := ok
	lost.TactileUnconfirmed[sim.IndexFinger] = 12
	clipped := ok
	clipped.TactileClipped[sim.Thumb] = 3
	capped := ok
	capped.CappedS[sim.IndexFinger] = 0.012
	// Pins that delivered 9 µm of 20 sent at 40 Hz on the index, 3 µm of
	// 5 at 320 Hz on the thumb (within half), nothing measured of either
	// on the other finger.
	weak := ok
	weak.MeanA40Um[sim.IndexFinger], weak.DeliveredA40Um[sim.IndexFinger] = 20, 9
	weak.MeanA320Um[sim.Thumb], weak.DeliveredA320Um[sim.Thumb] = 5, 3
	weak.MeanA40Um[sim.Thumb], weak.DeliveredA40Um[sim.Thumb] = 20, math.NaN()
	name := func(i int) string { return []string{"first", "second"}[i] }
	index := needs{arrays: [2]bool{false, true}}
	thumb := needs{arrays: [2]bool{true, false}}
	for _, tc := range []struct {
		stats []rig.IntervalStats
		need  needs
		want  string
	}{
		{[]rig.IntervalStats{ok, ok}, allDevices, ""},
		{[]rig.IntervalStats{ok, safe}, allDevices, "second: the thumb exoskeleton outside its active state for 0.05 of 0.3 s"},
		{[]rig.IntervalStats{ok, safe}, index, ""},
		{[]rig.IntervalStats{lost, safe}, allDevices, "first: 12 of 12 frames not confirmed by the index tactile array; second: the thumb exoskeleton outside its active state for 0.05 of 0.3 s"},
		{[]rig.IntervalStats{lost, safe}, index, "first: 12 of 12 frames not confirmed by the index tactile array"},
		{[]rig.IntervalStats{lost, safe}, thumb, ""},
		{[]rig.IntervalStats{clipped, lost}, needs{arrays: [2]bool{true, true}}, "first: 3 of 12 frames clipped by the thumb tactile array at its amplitude limits; second: 12 of 12 frames not confirmed by the index tactile array"},
		{[]rig.IntervalStats{clipped}, index, ""},
		{[]rig.IntervalStats{capped}, allDevices, "first: the index's force capped at its exoskeleton's force limit for 0.012 of 0.3 s; the cloth asked for more force than the exoskeletons render: a lighter grip, or lower levels"},
		{[]rig.IntervalStats{capped}, index, ""},
		{[]rig.IntervalStats{ok, weak}, allDevices, "second: the index's pins delivered 9 µm at 40 Hz of the 20 µm sent, as its array measured them"},
		{[]rig.IntervalStats{weak}, thumb, ""},
	} {
		if got := undelivered(tc.stats, name, tc.need); got != tc.want {
			t.Errorf("undelivered (%+v): %q, want %q", tc.need, got, tc.want)
		}
	}
}

// A set experiment's trial whose interval an array did not confirm is
// presented again the same way, and the run stops when it stays away.
func TestUndeliveredSetTrial(t *testing.T) {
	tac, err := twin.NewTactile(twin.DefaultTactileParams(), sim.IndexFinger)
	if err != nil {
		t.Fatal(err)
	}
	a := &faultyArray{Tactile: tac}
	obs, err := ParseSetObserver("match:lambda=0.02,seed=7")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(fmt.Sprintf(setCheckTOML, "silk-habutae", "denim"), "repeats = 1", "repeats = 2", 1)
	path := filepath.Join(t.TempDir(), "set.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	e, b, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := rig.Config{}
	cfg.Tactile[sim.IndexFinger] = a
	var out bytes.Buffer
	_, err = Run(context.Background(), Options{Experiment: e, Source: b, Path: path, Subject: "sim01", OutDir: t.TempDir(), Out: &out,
		Library: kes.Library{Dir: t.TempDir()}, SetObserver: obs, NoTraces: true, SkipStimulusCheck: true, Rig: cfg,
		AfterTrial: func(n int) error {
			if n == 1 {
				a.start(-1, false)
			}
			return nil
		}})
	if !errors.Is(err, ErrNotDelivered) || !strings.Contains(err.Error(), "trial 2: stimulus not delivered in 3 presentations (roughness's interval: ") ||
		strings.Count(out.String(), "trial 2 not delivered (roughness's interval: ") != 2 {
		t.Fatalf("a set run whose index array went: %v\n%s", err, out.String())
	}
}

// A tone on the index does not depend on the thumb's array, which it
// leaves silent as a lost array is: its trials are recorded with the
// thumb's array gone, and not with the index's.
func TestToneNeedsItsFingersArray(t *testing.T) {
	for _, tc := range []struct {
		lost    int
		refused bool
	}{{sim.Thumb, false}, {sim.IndexFinger, true}} {
		t.Run(sim.FingerName(tc.lost), func(t *testing.T) {
			tac, err := twin.NewTactile(twin.DefaultTactileParams(), tc.lost)
			if err != nil {
				t.Fatal(err)
			}
			a := &faultyArray{Tactile: tac}
			cfg := rig.Config{Scripted: true}
			cfg.Tactile[tc.lost] = a
			dir, out, err := runTone(t, fmt.Sprintf(toneTOML, 40.0, "index", fmt.Sprintf(toneLevels, "5, 10, 20")), cfg, false, func(n int) error {
				if n == 1 {
					a.start(-1, false)
				}
				return nil
			})
			if tc.refused != errors.Is(err, ErrNotDelivered) || (!tc.refused && err != nil) {
				t.Fatalf("the %s array lost: %v\n%s", sim.FingerName(tc.lost), err, out)
			}
			b, err := os.ReadFile(filepath.Join(dir, "tone-limits", "sim01", "trials.csv"))
			if err != nil {
				t.Fatal(err)
			}
			if n, want := bytes.Count(b, []byte("\n"))-1, map[bool]int{false: 3, true: 1}[tc.refused]; n != want {
				t.Errorf("%d trials recorded, want %d\n%s", n, want, out)
			}
		})
	}
}

// forcePinchTOML is a 2AFC force-scale experiment on the pinch, its
// constant levels [%] filled in; it writes under tone-limits/ as the tone
// experiments of runTone do.
const forcePinchTOML = `
format = 1
name = "tone-limits"
side = 8
[stimulus]
kind = "force-scale"
[timing]
motion = "pinch"
gap_s = 0.3
iti_s = 0.3
[procedure]
kind = "constant"
[procedure.constant]
task = { kind = "afc", alternatives = 2 }
levels = [%s]
repeats = 1
seed = 1
`

// forceLimited is a rig configuration whose fingers' force limit
// (safety.max_force_n) is limit [N].
func forceLimited(limit float64) rig.Config {
	cfg := rig.Config{Servo: haptics.DefaultConfig()}
	cfg.Servo.Safety.MaxForce = limit
	return cfg
}

// A trial whose pinch asked a finger for more than its exoskeleton's force
// limit is not recorded: what the finger felt was cut at the limit, not
// the stimulus. Here the limit is 0.05 N (safety.max_force_n), which the
// pinch exceeds: the first trial is presented three times, then the run
// stops.
func TestCappedForceNotRecorded(t *testing.T) {
	dir, out, err := runTone(t, fmt.Sprintf(forcePinchTOML, "20, 40"), forceLimited(0.05), false, nil)
	if !errors.Is(err, ErrNotDelivered) || !strings.Contains(err.Error(), "trial 1: stimulus not delivered in 3 presentations") ||
		!strings.Contains(err.Error(), "force capped at its exoskeleton's force limit") {
		t.Fatalf("a pinch beyond the force limit: %v\n%s", err, out)
	}
	t.Log(err)
	if _, err := os.Stat(filepath.Join(dir, "tone-limits", "sim01", "trials.csv")); err == nil {
		b, _ := os.ReadFile(filepath.Join(dir, "tone-limits", "sim01", "trials.csv"))
		if bytes.Count(b, []byte("\n")) > 1 {
			t.Errorf("trials recorded:\n%s", b)
		}
	}
}

// The stimulus check refuses levels whose force the simulated exoskeletons
// cap at their force limit, before the first trial, rather than a run
// that stops at its first capped trial: at the reference already under a
// 0.05 N limit, at +400 % (the force scaled five times) under 1.0 N (the
// reference pinch is capped under 0.6 N, not under 0.8 N).
func TestCheckRefusesCappedForce(t *testing.T) {
	e, err := Parse([]byte(fmt.Sprintf(forcePinchTOML, "20, 400")), "force.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit float64
		want  string
	}{
		{0.05, "stimulus check: at the reference: stimulus not delivered on the simulated devices (the interval: the thumb's force capped at its exoskeleton's force limit"},
		{1.0, "stimulus check: at 400 %: stimulus not delivered on the simulated devices (the interval: "},
	} {
		rep, err := Check(context.Background(), CheckOptions{Experiment: e, Rig: forceLimited(tc.limit), Library: kes.Library{Dir: t.TempDir()}, Levels: 1, Pairs: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("under %g N: %s", tc.limit, rep.Reason)
		if rep.Valid || !strings.HasPrefix(rep.Reason, tc.want) {
			t.Errorf("a pinch under a %g N limit: valid %v, %q", tc.limit, rep.Valid, rep.Reason)
		}
	}
}
