package haptics

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// errDevice fails every call with err.
type errDevice struct {
	devices.Exoskeleton
	err error
}

func (d *errDevice) Read(*devices.ExoState) error { return d.err }

func TestDeviceErrorIsSafe(t *testing.T) {
	p := twin.DefaultExoParams()
	e, err := twin.NewExo(p, twin.DefaultBase(1), holdIntent{homePad(p, 1)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	d := &errDevice{Exoskeleton: e, err: errors.New("usb: pipe error")}
	s, err := NewServo(DefaultConfig(), [sim.NumFingers]Finger{{}, {Device: d, Kin: e.Kinematics(), Base: e.Base()}})
	if err != nil {
		t.Fatal(err)
	}
	var out sim.FingerState
	var rec TickRecord
	for k := range 200 {
		s.Tick(time.Duration(k)*time.Millisecond, nil, &out, &rec)
	}
	if rec.Fingers[1].State != StateSafe || rec.Fingers[1].Reason != ReasonDeviceError || out.Fingers[1].Valid {
		t.Errorf("finger %v %v valid %v, want safe device-error invalid", rec.Fingers[1].State, rec.Fingers[1].Reason, out.Fingers[1].Valid)
	}
}

func TestEvalLocal(t *testing.T) {
	m := sim.LocalModel{
		Valid: true, InContact: true, X0: [3]float64{0, 0, 0.01}, F0: [3]float64{0, 0, 1},
		K: [3][3]float64{{-100, 0, 0}, {0, -100, 0}, {0, 0, -1000}}, Normal: [3]float64{0, 0, -1}, Depth: 0.001,
	}
	cases := []struct {
		name    string
		m       func(sim.LocalModel) sim.LocalModel
		x       [3]float64
		kMax    float64
		want    [3]float64
		contact bool
	}{
		{"at X0", nil, [3]float64{0, 0, 0.01}, 0, [3]float64{0, 0, 1}, true},
		{"deeper", nil, [3]float64{0.001, 0, 0.0095}, 0, [3]float64{-0.1, 0, 1.5}, true},
		{"left the region", nil, [3]float64{0, 0, 0.0115}, 0, [3]float64{}, false},
		{"stiffness bound", nil, [3]float64{0, 0, 0.0095}, 500, [3]float64{0, 0, 1 + 0.5*500/math.Sqrt(1000*1000+2*100*100)}, true},
		{"invalid", func(m sim.LocalModel) sim.LocalModel { m.Valid = false; return m }, [3]float64{0, 0, 0.01}, 0, [3]float64{}, false},
		{"no contact", func(m sim.LocalModel) sim.LocalModel { m.InContact = false; return m }, [3]float64{0, 0, 0.01}, 0, [3]float64{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mm := m
			if tc.m != nil {
				mm = tc.m(m)
			}
			capStiffness(&mm, tc.kMax)
			f, c := mm.EvalAt(mm.T, tc.x), mm.Touches(mm.T, tc.x)
			if c != tc.contact || vec3.Norm(vec3.Sub(f, tc.want)) > 1e-12 {
				t.Errorf("got %v %v, want %v %v", f, c, tc.want, tc.contact)
			}
		})
	}
	for _, c := range []struct {
		name string
		m    func(*sim.LocalModel)
		want Reason
	}{
		{"as it is", func(*sim.LocalModel) {}, ReasonNone},
		{"not valid, NaN depth", func(m *sim.LocalModel) { m.Valid, m.Depth = false, math.NaN() }, ReasonNone},
		{"infinite X0", func(m *sim.LocalModel) { m.X0[0] = math.Inf(1) }, ReasonModelNaN},
		{"NaN velocity", func(m *sim.LocalModel) { m.V[1] = math.NaN() }, ReasonModelNaN},
		{"normal of length 3", func(m *sim.LocalModel) { m.Normal[2] = -3 }, ReasonModelInvalid},
		{"zero normal: no boundary", func(m *sim.LocalModel) { m.Normal = [3]float64{} }, ReasonNone},
		{"normal of length 0.5", func(m *sim.LocalModel) { m.Normal[2] = -0.5 }, ReasonModelInvalid},
		{"antisymmetric part", func(m *sim.LocalModel) { m.K[0][1], m.K[1][0] = 50, -50 }, ReasonModelInvalid},
		{"a positive eigenvalue", func(m *sim.LocalModel) { m.K[0][0] = 100 }, ReasonModelInvalid},
		{"symmetric, rounded", func(m *sim.LocalModel) { m.K[0][1], m.K[1][0] = 20, 20*(1+1e-15) }, ReasonNone},
		{"drift faster than the pad may move", func(m *sim.LocalModel) { m.V[0] = 1.6 }, ReasonModelInvalid},
		{"no contact, zero normal", func(m *sim.LocalModel) { m.InContact, m.Normal = false, [3]float64{} }, ReasonNone},
		{"no contact, NaN drift", func(m *sim.LocalModel) { m.InContact, m.V[2] = false, math.NaN() }, ReasonModelNaN},
	} {
		mm := m
		c.m(&mm)
		if got := localCheck(&mm, 1.5); got != c.want {
			t.Errorf("localCheck, %s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestRecordCSV(t *testing.T) {
	// A tick of both fingers active, pressing and moving a little.
	rec := TickRecord{T: 0.301, Tick: 301}
	for f := range rec.Fingers {
		z := 0.05*float64(f) - 0.04
		rec.Fingers[f] = FingerRecord{
			Pos: [3]float64{0.0102, 0.1011, z}, Vel: [3]float64{1.3e-4, -2.2e-5, 7e-6},
			ForceDes: [3]float64{0, 0, 1 - 2*float64(f)}, ForceMeas: [3]float64{0.003, -0.0051, 0.9987 - 2*float64(f)},
			Torque: [3]float64{0.0123, -0.0045, 0.00067}, Energy: -1.25e-6, Contact: true,
			State: StateActive, Reason: ReasonNone,
		}
	}
	row := string(rec.AppendCSV(nil))
	h := TickCSVHeader()
	if nh, nr := strings.Count(h, ","), strings.Count(row, ","); nh != nr {
		t.Fatalf("header has %d commas, row %d\n%s\n%s", nh, nr, h, row)
	}
	if !strings.Contains(row, ",active,none") || !strings.HasPrefix(h, "t_s,tick,overrun,thumb_x_m") {
		t.Errorf("row %q", row)
	}
	buf := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() { buf = rec.AppendCSV(buf[:0]) }); n != 0 {
		t.Errorf("AppendCSV allocates %v times", n)
	}
	for s := StateSafe; s <= StateStopping; s++ {
		if strings.Contains(s.String(), "?") {
			t.Errorf("state %d has no name", s)
		}
	}
	for x := ReasonNone; x <= ReasonDeviceDisabled; x++ {
		if strings.Contains(x.String(), "?") || x.String() == "" {
			t.Errorf("reason %d has no name", x)
		}
	}
}

func TestConfig(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Period != time.Millisecond || c.Safety.Silent != 5*time.Millisecond || c.Safety.EnableRamp != 50*time.Millisecond {
		t.Errorf("durations not decoded from the file's milliseconds: %v %+v", c.Period, c.Safety)
	}
	// servo.toml with one line changed: an unknown key, values out of
	// range, a period that is not a number.
	for _, edit := range [][2]string{
		{"[force]\n", "[force]\nkf = 1\n"},
		{"butter_hz = 100.0", "butter_hz = 600.0"},
		{"cheby_order = 3", "cheby_order = 0"},
		{"stop_ramp_ms = 4.0", "stop_ramp_ms = 20.0"},
		{"feedforward = 0.96", "feedforward = 2.0"},
		{"contact_tau_s = 0.036", "contact_tau_s = -1.0"},
		{"contact_rest_mps = 0.005", "contact_rest_mps = -0.005"},
		{"stiff_integral_rad_s = 110.0", "stiff_integral_rad_s = -1.0"},
		{"viscous_nms = [0.034, 0.042, 0.012]", "viscous_nms = [0.034, -0.042, 0.012]"},
		{"transmission_stiffness_nm_per_rad = [367.0, 367.0, 164.0]", "transmission_stiffness_nm_per_rad = [367.0, nan, 164.0]"},
		{"period_ms = 1.0", "period_ms = nan"},
	} {
		src := string(defaultConfigTOML)
		if !strings.Contains(src, edit[0]) {
			t.Fatalf("servo.toml has no %q", edit[0])
		}
		if _, err := decodeConfig([]byte(strings.Replace(src, edit[0], edit[1], 1))); err == nil {
			t.Errorf("accepted %q", edit[1])
		}
	}
}

// The configuration's JSON (session.json) keeps the file's units under
// the keys it has always had, and reads back to the same durations.
func TestConfigJSON(t *testing.T) {
	c := DefaultConfig()
	c.Safety.EnableRamp = 45 * time.Millisecond
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"PeriodMs":1,`, `"EnableRampMs":45,`, `"SilentMs":5,`, `"RecoverMs":100,`, `"Kf":0.342,`, `"PlausibleMs":10,`, `"Limits":{"MaxForceCont":10,`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s: %s", key, b)
		}
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back != c {
		t.Errorf("read back %+v, want %+v", back, c)
	}
	// A session.json written before the safety checks and limits existed
	// reads with their defaults.
	var old Config
	if err := json.Unmarshal([]byte(`{"PeriodMs":1,"Safety":{"MaxSpeed":1.2}}`), &old); err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	want.Safety.MaxSpeed = 1.2
	if old != want {
		t.Errorf("old JSON read as %+v, want the defaults with its one change", old)
	}
	if err := old.Validate(); err != nil {
		t.Error(err)
	}
}

func TestNewServoRejects(t *testing.T) {
	p := twin.DefaultExoParams()
	e, _ := twin.NewExo(p, twin.DefaultBase(1), holdIntent{homePad(p, 1)}, 1)
	if _, err := NewServo(DefaultConfig(), [sim.NumFingers]Finger{{}, {Device: e}}); err == nil {
		t.Error("accepted a finger without kinematics")
	}
	bad := e.Base()
	bad.R[0][0] = 2
	if _, err := NewServo(DefaultConfig(), [sim.NumFingers]Finger{{}, {Device: e, Kin: e.Kinematics(), Base: bad}}); err == nil {
		t.Error("accepted a non-rotation base")
	}
}

// SetForceScale refuses scales outside [0, 10] and keeps the one it had
// (haptics/servobench measures that the rendered force follows the scale).
func TestForceScaleBounds(t *testing.T) {
	for _, k := range []float64{-1, math.NaN(), math.Inf(1), 11} {
		s := &Servo{scale: 1}
		if err := s.SetForceScale(k); err == nil || s.ForceScale() != 1 {
			t.Errorf("scale %v accepted", k)
		}
	}
}

// Period is the configured tick; the loop-gain hooks leave a finger
// without a device alone (haptics/servobench measures through them).
func TestPeriodAndTestSignal(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Period = 500 * time.Microsecond
	s, err := NewServo(cfg, [sim.NumFingers]Finger{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Period() != 500*time.Microsecond {
		t.Errorf("period %v, want 500µs", s.Period())
	}
	s.InjectForceError(sim.IndexFinger, [3]float64{1, 2, 3})
	s.Tick(0, nil, nil, nil)
	if e := s.ForceError(sim.IndexFinger); e != [3]float64{} {
		t.Errorf("force error %v of a finger without a device", e)
	}
}

// lateOn reports the power stage off for the first `after` samples after
// each Enable(true), as STATEs already on their way when the ENABLE went
// out do; with never, it reports it off for good.
type lateOn struct {
	devices.Exoskeleton
	devices.Clocked
	after, left int
	never       bool
}

func (d *lateOn) Enable(on bool) error {
	d.left = d.after
	return d.Exoskeleton.Enable(on)
}

func (d *lateOn) Read(st *devices.ExoState) error {
	err := d.Exoskeleton.Read(st)
	if d.never || d.left > 0 {
		st.Enabled = false
	}
	d.left = max(d.left-1, 0)
	return err
}

// Enable does not wait for the device: the servo waits, within
// safety.enable_wait_ms, for a sample that reports the stage on. A device
// that reports it late is enabled as one that reports it at once is; one
// that never does is stopped with its reason and tried again.
func TestEnableWaitsForPowerOn(t *testing.T) {
	run := func(cfg Config, d *lateOn, until time.Duration, each func(at time.Duration, fr *FingerRecord)) {
		t.Helper()
		p := twin.DefaultExoParams()
		e, err := twin.NewExo(p, twin.DefaultBase(sim.IndexFinger), holdIntent{homePad(p, sim.IndexFinger)}, 1)
		if err != nil {
			t.Fatal(err)
		}
		d.Exoskeleton, d.Clocked = e, e
		s, err := NewServo(cfg, [sim.NumFingers]Finger{{}, {Device: d, Kin: e.Kinematics(), Base: e.Base()}})
		if err != nil {
			t.Fatal(err)
		}
		var rec TickRecord
		for k := time.Duration(0); k <= until; k += time.Millisecond {
			s.Tick(k, nil, nil, &rec)
			each(k, &rec.Fingers[sim.IndexFinger])
		}
	}
	cfg := DefaultConfig()
	enableAt := cfg.Safety.Recover
	for _, c := range []struct {
		after int
		ramp  time.Duration
	}{{0, 50 * time.Millisecond}, {5, 50 * time.Millisecond}, {15, 50 * time.Millisecond}, {5, 0}, {5, 2 * time.Millisecond}} {
		after := c.after
		cfg := cfg
		cfg.Safety.EnableRamp = c.ramp
		activeBy := enableAt + max(c.ramp, time.Duration(after)*time.Millisecond) + 2*time.Millisecond
		active := time.Duration(-1)
		run(cfg, &lateOn{after: after}, activeBy, func(at time.Duration, fr *FingerRecord) {
			if fr.Reason != ReasonStartup && fr.Reason != ReasonNone {
				t.Fatalf("stage on %d samples after enable: %v %v at %v", after, fr.State, fr.Reason, at)
			}
			if fr.State == StateActive && active < 0 {
				active = at
			}
		})
		if active < 0 {
			t.Errorf("stage on %d samples after enable: not active %v after the start", after, activeBy)
		}
	}
	wait := cfg.Safety.EnableWait
	var enabling, timedOut, again time.Duration = -1, -1, -1
	run(cfg, &lateOn{never: true}, enableAt+wait+cfg.Safety.StopRamp+cfg.Safety.Recover+5*time.Millisecond, func(at time.Duration, fr *FingerRecord) {
		switch {
		case fr.State == StateActive:
			t.Fatalf("active at %v with the stage off", at)
		case fr.State == StateEnabling && enabling < 0:
			enabling = at
		case fr.Reason == ReasonEnableTimeout && timedOut < 0:
			timedOut = at
		case fr.State == StateEnabling && timedOut >= 0 && fr.Reason == ReasonEnableTimeout && again < 0:
			again = at
		}
	})
	if enabling < 0 || timedOut-enabling <= wait || timedOut-enabling > wait+2*time.Millisecond {
		t.Errorf("enabling from %v, enable-timeout at %v: want %v after", enabling, timedOut, wait)
	}
	if again < 0 {
		t.Errorf("not tried again after the timeout")
	}
}

// holdIntent keeps a finger's intent at one point.
type holdIntent struct{ pos [3]float64 }

func (h holdIntent) At(time.Duration, int) (pos, vel [3]float64) { return h.pos, [3]float64{} }

// homePad returns the world pad position of finger f at the home posture
// of the default simulated device.
func homePad(p twin.ExoParams, f int) [3]float64 {
	kin, err := exo.New(p.Kinematics)
	if err != nil {
		panic(err)
	}
	b := twin.DefaultBase(f)
	return b.Point(kin.Forward(kin.Params().Home))
}

// TestStiffnessLimit: a local model stiffer than model.max_stiffness_npm
// is rendered with its stiffness limited and every tick records the
// stiffness asked and that it was limited; the record's desired force is
// the cloth's own, unlimited, at the measured pad, so the limit shows as
// tracking error. A model within the limit is rendered as it is.
func TestStiffnessLimit(t *testing.T) {
	cfg := DefaultConfig()
	s, e, out, tm := activeIndex(t, cfg)
	var rec TickRecord
	base := e.Base()
	n := base.Vec([3]float64{1, 0, 0}) // the pad presses along base x
	for _, k := range []float64{4600, 1000} {
		var in sim.Output
		lm := &in.Local[1]
		*lm = sim.LocalModel{T: tm, Step: 1, X0: vec3.Sub(out.Fingers[1].Pos, vec3.Scale(0.0002, n)), F0: vec3.Scale(-0.3, n),
			Normal: n, Depth: 0.01, InContact: true, Valid: true}
		for i := range 3 {
			for j := range 3 {
				lm.K[i][j] = -k * n[i] * n[j]
			}
		}
		s.Tick(tm, &in, &out, &rec)
		tm += time.Millisecond
		fr := rec.Fingers[1]
		want := lm.EvalAt(tm-time.Millisecond, fr.Pos)
		limited := k > cfg.Model.MaxStiffness
		if fr.State != StateActive || !fr.Contact || math.Abs(fr.Stiffness-k) > 1e-6*k || fr.Limited != limited || vec3.Norm(vec3.Sub(fr.ForceDes, want)) > 1e-12 {
			t.Errorf("%g N/m: state %v contact %v, recorded stiffness %g limited %v, desired force %v (the cloth's %v); want limited %v",
				k, fr.State, fr.Contact, fr.Stiffness, fr.Limited, fr.ForceDes, want, limited)
		}
	}
}

// A cloth force beyond the finger's force limit is capped to it, and the
// tick record says so: ForceDes is then the limit, not the cloth's force.
func TestForceCapRecorded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Safety.MaxForce = 0.5
	s, e, out, tm := activeIndex(t, cfg)
	var rec TickRecord
	base := e.Base()
	n := base.Vec([3]float64{1, 0, 0})
	for _, tc := range []struct {
		f      float64 // the cloth's force [N]
		capped bool
	}{{0.3, false}, {0.8, true}, {0.45, false}} {
		var in sim.Output
		in.Local[1] = sim.LocalModel{T: tm, Step: 1, X0: out.Fingers[1].Pos, F0: vec3.Scale(-tc.f, n),
			Normal: n, Depth: 0.01, InContact: true, Valid: true}
		s.Tick(tm, &in, &out, &rec)
		tm += time.Millisecond
		fr := rec.Fingers[1]
		if want := math.Min(tc.f, 0.5); fr.State != StateActive || fr.Capped != tc.capped || math.Abs(vec3.Norm(fr.ForceDes)-want) > 1e-9 {
			t.Errorf("a cloth force of %g N under a 0.5 N limit: state %v, capped %v, desired %g N; want capped %v, %g N",
				tc.f, fr.State, fr.Capped, vec3.Norm(fr.ForceDes), tc.capped, want)
		}
	}
}

// activeIndex returns a servo of configuration cfg on a simulated index
// exoskeleton held at its home pose, run for 300 ms without a cloth (the
// finger enabled and active by then), with its last output and the time
// of its next tick.
func activeIndex(t *testing.T, cfg Config) (*Servo, *twin.Exo, sim.FingerState, time.Duration) {
	t.Helper()
	p := twin.DefaultExoParams()
	e, err := twin.NewExo(p, twin.DefaultBase(1), holdIntent{homePad(p, 1)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServo(cfg, [sim.NumFingers]Finger{{}, {Device: e, Kin: e.Kinematics(), Base: e.Base()}})
	if err != nil {
		t.Fatal(err)
	}
	var out sim.FingerState
	var rec TickRecord
	tm := time.Duration(0)
	for ; tm < 300*time.Millisecond; tm += time.Millisecond {
		s.Tick(tm, nil, &out, &rec)
	}
	return s, e, out, tm
}
