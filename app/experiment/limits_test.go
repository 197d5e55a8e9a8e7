package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// toneTOML is a 2AFC tone experiment with the fingers at rest:
// frequency, finger and procedure filled in.
const toneTOML = `
format = 1
name = "tone-limits"
side = 8
[stimulus]
kind = "tactile-tone"
frequency_hz = [%g]
finger = %q
[timing]
motion = "rest"
interval_s = 0.3
gap_s = 0.3
iti_s = 0.3
[procedure]
%s
`

const (
	toneLevels    = "kind = \"constant\"\n[procedure.constant]\ntask = { kind = \"afc\", alternatives = 2 }\nlevels = [%s]\nrepeats = 1\nseed = 1"
	toneStaircase = "kind = \"staircase\"\n[procedure.staircase]\ntask = { kind = \"afc\", alternatives = 2 }\nscale = \"linear\"\nstart = 10\nmin = 1\nmax = %g\nup = 1\ndown = 2\nsteps = [4, 2]\nmax_trials = 4"
)

func runTone(t *testing.T, src string, cfg rig.Config, check bool, after func(int) error) (string, string, error) {
	t.Helper()
	e, err := Parse([]byte(src), "tone.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var out bytes.Buffer
	_, err = Run(context.Background(), Options{Experiment: e, Source: []byte(src), Path: "tone.toml", Subject: "sim01", OutDir: dir, Out: &out,
		Observers: []*psych.Observer{observer(t)}, AfterTrial: after, Rig: cfg, SkipStimulusCheck: !check, NoTraces: true})
	return dir, out.String(), err
}

// A tone experiment whose levels reach above the amplitude limit of the
// array it vibrates stops before its first trial, in the stimulus check or,
// on an array whose limit the check's simulated one does not share, once
// the run's rig has opened it: the array would clip those levels while
// the trials recorded them as sent. Levels within the limit run.
func TestToneWithinArrayLimits(t *testing.T) {
	low := twin.DefaultTactileParams() // 200 µm at 40 Hz, 30 µm at 320 Hz
	low.MaxA40Um = 25
	for _, tc := range []struct {
		name   string
		hz     float64
		finger string
		proc   string
		check  bool
		params *twin.TactileParams // the index array's, when not the default
		want   string              // "": the run starts its trials
	}{
		{"320 Hz levels above, in the check", 320, "index", fmt.Sprintf(toneLevels, "5, 20, 60"), true, nil,
			"check: procedure: levels up to 60 µm at 320 Hz, above the index array's limit of 30 µm"},
		{"320 Hz levels above, in the run", 320, "index", fmt.Sprintf(toneLevels, "5, 20, 60"), false, nil,
			"procedure: levels up to 60 µm at 320 Hz, above the index array's limit of 30 µm"},
		{"320 Hz levels at the limit", 320, "index", fmt.Sprintf(toneLevels, "5, 30"), false, nil, ""},
		{"both fingers: the tighter array", 40, "", fmt.Sprintf(toneStaircase, 40.0), false, &low,
			"procedure: levels up to 40 µm at 40 Hz, above the index array's limit of 25 µm"},
		{"the thumb's array, not the index's", 40, "thumb", fmt.Sprintf(toneStaircase, 40.0), false, &low, ""},
		{"the index's own array's limit", 40, "index", fmt.Sprintf(toneStaircase, 40.0), false, &low,
			"procedure: levels up to 40 µm at 40 Hz, above the index array's limit of 25 µm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := rig.Config{Scripted: true}
			if tc.params != nil {
				a, err := twin.NewTactile(*tc.params, sim.IndexFinger)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Tactile[sim.IndexFinger] = a
			}
			dir, out, err := runTone(t, fmt.Sprintf(toneTOML, tc.hz, tc.finger, tc.proc), cfg, tc.check, func(n int) error {
				if n == 1 {
					return errEnough
				}
				return nil
			})
			if tc.want == "" {
				if !errors.Is(err, errEnough) {
					t.Fatalf("levels within the limit: %v\n%s", err, out)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "tone-limits", "sim01", "trials.csv")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("trials.csv of a run refused: %v", err)
			}
		})
	}
}

// lyingArray is a simulated array that clips above a lower amplitude than
// its capability record gives (a misconfigured or worn array), and says so
// in its status, as the protocol's TACTILE_STATUS does.
type lyingArray struct {
	*twin.Tactile
	spec    devices.TactileSpec
	mu      sync.Mutex
	clipped bool // the newest frame was clipped
}

func (a *lyingArray) Spec() devices.TactileSpec { return a.spec }

func (a *lyingArray) WriteFrame(f *devices.TactileFrame) error {
	_, before := a.Tactile.Frames()
	err := a.Tactile.WriteFrame(f)
	_, after := a.Tactile.Frames()
	a.mu.Lock()
	a.clipped = after > before
	a.mu.Unlock()
	return err
}

func (a *lyingArray) Status(dst *devices.TactileStatus) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	*dst = devices.TactileStatus{Active: true, Clamped: a.clipped}
	return nil
}

// A trial whose tone the array reports clipping is not recorded: it is
// presented again, and the run stops after three presentations with the
// trials below the array's true limit saved. The array claims 30 µm at
// 320 Hz and clips at 15; the levels 5 and 20 µm pass the limits check.
func TestClippedToneNotRecorded(t *testing.T) {
	p := twin.DefaultTactileParams()
	p.MaxA320Um = 15
	tac, err := twin.NewTactile(p, sim.IndexFinger)
	if err != nil {
		t.Fatal(err)
	}
	a := &lyingArray{Tactile: tac, spec: tac.Spec()}
	a.spec.MaxA320Um = 30
	cfg := rig.Config{Scripted: true}
	cfg.Tactile[sim.IndexFinger] = a
	dir, out, err := runTone(t, fmt.Sprintf(toneTOML, 320.0, "index", fmt.Sprintf(toneLevels, "5, 20")), cfg, false, nil)
	if !errors.Is(err, ErrNotDelivered) || !strings.Contains(err.Error(), "frames clipped by the index tactile array at its amplitude limits") {
		t.Fatalf("a tone the array clips: %v\n%s", err, out)
	}
	if n := strings.Count(out, "frames clipped by the index tactile array at its amplitude limits): presented again"); n != 2 {
		t.Errorf("presented again %d times, want 2\n%s", n, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "tone-limits", "sim01", "trials.csv"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for _, row := range strings.Split(string(b), "\n")[1:] {
		if f := strings.Split(row, ","); len(f) > 2 && f[2] != "5" {
			t.Errorf("recorded a trial at %s µm, which the array clipped", f[2])
		}
	}
}

// The threshold calibration caps each track at the limits of the array
// it runs on: an array weaker than the simulated one's 200 and 30 µm
// is measured, not refused.
func TestThresholdWithinArrayLimits(t *testing.T) {
	p := twin.DefaultTactileParams()
	p.MaxA40Um, p.MaxA320Um = 100, 10
	tac, err := twin.NewTactile(p, sim.IndexFinger)
	if err != nil {
		t.Fatal(err)
	}
	cfg := rig.Config{Scripted: true}
	cfg.Tactile[sim.IndexFinger] = tac
	c := ThresholdCalibration{Subject: "sim01", Fingers: []string{"index"}, Method: psych.KindStaircase,
		OutDir: t.TempDir(), Out: io.Discard, Rig: cfg,
		Observers: func(task psych.Task) ([]*psych.Observer, error) {
			var obs []*psych.Observer
			for _, th := range []string{"2", "0.5"} {
				o, err := psych.ParseObserver("nominal:form=weibull,threshold="+th+",beta=3,lambda=0.01,seed=3", task)
				if err != nil {
					return nil, err
				}
				obs = append(obs, o)
			}
			return obs, nil
		},
		AfterTrial: func(_ *Experiment, n int) error {
			if n == 2 {
				return errEnough
			}
			return nil
		}}
	if err := c.Run(context.Background(), psych.NewThresholdFile("sim01", time.Now())); !errors.Is(err, errEnough) {
		t.Fatalf("a threshold run on a weaker array: %v", err)
	}
}

// weakArray is the simulated array whose pins silently deliver a fraction
// of what they are sent (a loose mount, a failing amplifier): its status,
// had it one, would say nothing; what its pins do says it.
type weakArray struct {
	*twin.Tactile
	gain float64
}

func (a *weakArray) WriteFrame(f *devices.TactileFrame) error {
	g := *f
	for p := range g.A40Um {
		g.A40Um[p] *= a.gain
		g.A320Um[p] *= a.gain
	}
	return a.Tactile.WriteFrame(&g)
}

// A tone the array's pins measurably did not deliver (a third of it) is
// presented again, then the run stops with nothing recorded; at 0.7 of
// it, within the pins' tolerance, the run records its trials.
func TestWeakToneNotRecorded(t *testing.T) {
	for _, tc := range []struct {
		gain   float64
		stops  bool
		trials int
	}{{0.3, true, 0}, {0.7, false, 2}} {
		t.Run(fmt.Sprint(tc.gain), func(t *testing.T) {
			tac, err := twin.NewTactile(twin.DefaultTactileParams(), sim.IndexFinger)
			if err != nil {
				t.Fatal(err)
			}
			cfg := rig.Config{Scripted: true}
			cfg.Tactile[sim.IndexFinger] = &weakArray{Tactile: tac, gain: tc.gain}
			dir, out, err := runTone(t, fmt.Sprintf(toneTOML, 40.0, "index", fmt.Sprintf(toneLevels, "5, 20")), cfg, false, nil)
			for _, l := range strings.Split(out, "\n") {
				if strings.Contains(l, "not delivered") {
					t.Log(l)
				}
			}
			if tc.stops != (err != nil) || tc.stops && !errors.Is(err, ErrNotDelivered) {
				t.Fatalf("a tone delivered at %g of what was sent: %v\n%s", tc.gain, err, out)
			}
			if tc.stops && !strings.Contains(err.Error(), "the index's pins delivered 1.5") {
				t.Errorf("the error does not say what the pins delivered: %v", err)
			}
			b, _ := os.ReadFile(filepath.Join(dir, "tone-limits", "sim01", "trials.csv"))
			if n := max(0, strings.Count(string(b), "\n")-1); n != tc.trials {
				t.Errorf("%d trials recorded, want %d", n, tc.trials)
			}
		})
	}
}
