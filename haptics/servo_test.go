package haptics

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// newHoldRig returns a rig with both fingers resting at home, active.
func newHoldRig(t testing.TB, cfg Config) *simRig {
	t.Helper()
	p := twin.DefaultExoParams()
	r, err := newSimRig(cfg, p, [sim.NumFingers]twin.Intent{holdIntent{homePad(p, 0)}, holdIntent{homePad(p, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.waitActive(time.Second); err != nil {
		t.Fatal(err)
	}
	return r
}

// pressBoth asks both devices for 1 N against the pads and settles.
func pressBoth(r *simRig) {
	for f := range sim.NumFingers {
		forceModel(&r.in.Local[f], vec3.Scale(-1, pressDir(f)), 1)
	}
	for end := r.t + 200*time.Millisecond; r.t < end; {
		r.tick()
	}
}

// stopTime ticks until finger f is safe with zero torque and returns when
// that happened; it fails if the record ever shows a torque larger than
// the one before the fault, or if it takes longer than limit.
func stopTime(t *testing.T, r *simRig, f int, limit time.Duration, want Reason) time.Duration {
	t.Helper()
	t0 := r.t
	before := vec3.Norm(r.rec.Fingers[f].Torque)
	for r.t < t0+limit {
		r.tick()
		fr := &r.rec.Fingers[f]
		n := vec3.Norm(fr.Torque)
		if fr.State == StateActive {
			before = n // not yet a fault (a silence is one only after silent_ms)
		} else if n > before*1.001+1e-9 {
			t.Fatalf("torque rose to %.4g N·m during the stop (was %.4g)", n, before)
		}
		if fr.State == StateSafe && fr.Torque == [3]float64{} {
			if fr.Reason != want {
				t.Fatalf("safe with reason %v, want %v", fr.Reason, want)
			}
			return r.t - r.period - t0
		}
	}
	t.Fatalf("finger %d not safe %v after the fault: %v %v", f, limit, r.rec.Fingers[f].State, r.rec.Fingers[f].Reason)
	return 0
}

func TestStartupRamp(t *testing.T) {
	cfg := DefaultConfig()
	p := twin.DefaultExoParams()
	r, err := newSimRig(cfg, p, [sim.NumFingers]twin.Intent{nil, holdIntent{homePad(p, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	forceModel(&r.in.Local[sim.IndexFinger], vec3.Scale(-1, pressDir(sim.IndexFinger)), 1)
	seen := map[State]bool{}
	for r.t < 400*time.Millisecond {
		r.tick()
		fr := &r.rec.Fingers[sim.IndexFinger]
		seen[fr.State] = true
		if fr.State == StateSafe && fr.Torque != [3]float64{} {
			t.Fatalf("torque %v in the safe state", fr.Torque)
		}
		if fr.State == StateEnabling {
			since := r.servo.Status(sim.IndexFinger).Since
			ramp := float64(r.t-r.period-since) / (cfg.Safety.EnableRampMs * 1e6)
			if n := vec3.Norm(fr.ForceDes); n > ramp+1e-9 {
				t.Fatalf("enabling at ramp %.3f renders %.3f N of a 1 N request", ramp, n)
			}
		}
		if r.rec.Fingers[sim.Thumb].State != StateSafe || r.rec.Fingers[sim.Thumb].Reason != ReasonNoDevice {
			t.Fatalf("thumb without device: %v %v", r.rec.Fingers[sim.Thumb].State, r.rec.Fingers[sim.Thumb].Reason)
		}
	}
	for _, s := range []State{StateSafe, StateEnabling, StateActive} {
		if !seen[s] {
			t.Errorf("never %v during startup", s)
		}
	}
}

// TestFaults injects each fault of the issue into one finger pressing with
// 1 N and checks that it ends in the safe state within 10 ms with its
// reason in the record, that the other finger goes on (except overruns,
// which stop both), and that the finger comes back with the enable ramp.
func TestFaults(t *testing.T) {
	cases := []struct {
		name   string
		reason Reason
		inject func(r *simRig)
		heal   func(r *simRig)
		both   bool
	}{
		{
			name: "unplug", reason: ReasonDisconnected,
			inject: func(r *simRig) { r.exos[sim.IndexFinger].Unplug() },
			heal:   func(r *simRig) { r.exos[sim.IndexFinger].Replug() },
		},
		{
			name: "sensor spike", reason: ReasonSensorSpike,
			inject: func(r *simRig) { r.exos[sim.IndexFinger].InjectSpike([3]float64{0, 0, 9}) },
			heal:   func(*simRig) {},
		},
		{
			name: "model NaN", reason: ReasonModelNaN,
			inject: func(r *simRig) { r.in.Local[sim.IndexFinger].F0[1] = math.NaN() },
			heal: func(r *simRig) {
				forceModel(&r.in.Local[sim.IndexFinger], vec3.Scale(-1, pressDir(sim.IndexFinger)), 7)
			},
		},
		{
			name: "model Inf stiffness", reason: ReasonModelNaN,
			inject: func(r *simRig) { r.in.Local[sim.IndexFinger].K[2][0] = math.Inf(-1) },
			heal: func(r *simRig) {
				forceModel(&r.in.Local[sim.IndexFinger], vec3.Scale(-1, pressDir(sim.IndexFinger)), 8)
			},
		},
		{
			name: "overrun burst", reason: ReasonOverrun, both: true,
			inject: func(r *simRig) {
				for range 3 {
					r.t += 2 * r.period // each tick 3 ms after the previous
					r.tick()
				}
			},
			heal: func(*simRig) {},
		},
		{
			name: "silent device", reason: ReasonSilent,
			inject: func(r *simRig) { r.exos[sim.IndexFinger].Silence(true) },
			heal:   func(r *simRig) { r.exos[sim.IndexFinger].Silence(false) },
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			r := newHoldRig(t, cfg)
			pressBoth(r)
			onset := r.t
			tc.inject(r)
			d := stopTime(t, r, sim.IndexFinger, 30*time.Millisecond, tc.reason)
			total := r.t - r.period - onset
			limit := 10 * time.Millisecond
			if tc.reason == ReasonSilent {
				// Silence is only a fault once it lasted silent_ms.
				limit += time.Duration(cfg.Safety.SilentMs * 1e6)
			}
			t.Logf("safe %v after the fault's detection, %v after its onset", d, total)
			if tc.reason == ReasonOverrun {
				// The burst is the fault: it exists once the streak is
				// complete, 3 late ticks 3 ms apart.
				total = d
			}
			if total > limit {
				t.Errorf("safe %v after the onset, want <= %v", total, limit)
			}
			if tc.both {
				if st := r.servo.Status(sim.Thumb); st.State != StateSafe || st.Reason != tc.reason {
					t.Errorf("thumb %v %v, want safe %v", st.State, st.Reason, tc.reason)
				}
			} else if st := r.servo.Status(sim.Thumb); st.State != StateActive {
				t.Errorf("thumb %v (%v): a fault of the index stopped it", st.State, st.Reason)
			}
			tc.heal(r)
			back := r.t
			for r.t < back+time.Second && r.servo.Status(sim.IndexFinger).State != StateActive {
				r.tick()
				if r.rec.Fingers[sim.IndexFinger].State == StateEnabling && r.rec.Fingers[sim.IndexFinger].Reason != tc.reason {
					t.Fatalf("enabling with reason %v, want the fault's reason %v until active", r.rec.Fingers[sim.IndexFinger].Reason, tc.reason)
				}
			}
			if st := r.servo.Status(sim.IndexFinger); st.State != StateActive || st.Trips != 1 {
				t.Errorf("after healing: %+v, want active after one trip", st)
			}
		})
	}
}

// TestNaNNeverSpikes: a NaN anywhere in the model never reaches the
// device: commands stay finite and never grow.
func TestNaNNeverSpikes(t *testing.T) {
	r := newHoldRig(t, DefaultConfig())
	pressBoth(r)
	r.in.Local[sim.IndexFinger] = sim.LocalModel{Valid: true, InContact: true, Depth: math.NaN()}
	before := vec3.Norm(r.rec.Fingers[sim.IndexFinger].Torque)
	for range 50 {
		r.tick()
		tau := r.rec.Fingers[sim.IndexFinger].Torque
		if !finite3(&tau) || vec3.Norm(tau) > before+1e-9 || vec3.Norm(r.rec.Fingers[sim.IndexFinger].ForceDes) != 0 {
			t.Fatalf("torque %v, force %v after a NaN model", tau, r.rec.Fingers[sim.IndexFinger].ForceDes)
		}
	}
}

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

func TestForceEnvelope(t *testing.T) {
	cfg := DefaultConfig()
	r := newHoldRig(t, cfg)
	dir := vec3.Scale(-1, pressDir(sim.IndexFinger))
	forceModel(&r.in.Local[sim.IndexFinger], vec3.Scale(50, dir), 1) // far beyond the device
	maxF := r.servo.fingers[sim.IndexFinger].maxForce
	var prev [3]float64
	for range 100 {
		r.tick()
		fd := r.rec.Fingers[sim.IndexFinger].ForceDes
		if n := vec3.Norm(fd); n > maxF+1e-9 {
			t.Fatalf("rendered %.3f N, limit %.3f N", n, maxF)
		}
		if d := vec3.Norm(vec3.Sub(fd, prev)); d > cfg.Safety.MaxForceRate*cfg.PeriodMs/1000+1e-9 {
			t.Fatalf("force stepped by %.3f N in one tick", d)
		}
		prev = fd
	}
	if n := vec3.Norm(prev); math.Abs(n-maxF) > 1e-6 {
		t.Errorf("rendered %.3f N, want the %.3f N limit", n, maxF)
	}
}

// TestSlewAcrossSimSteps: a new sim step whose model disagrees with the
// previous one at the finger is blended in at the slew rate.
func TestSlewAcrossSimSteps(t *testing.T) {
	cfg := DefaultConfig()
	r := newHoldRig(t, cfg)
	dir := vec3.Scale(-1, pressDir(sim.IndexFinger))
	forceModel(&r.in.Local[sim.IndexFinger], vec3.Scale(0.5, dir), 1)
	for range 100 {
		r.tick()
	}
	forceModel(&r.in.Local[sim.IndexFinger], vec3.Scale(1.5, dir), 2) // a 1 N jump
	slew := cfg.Model.SlewNPerS * cfg.PeriodMs / 1000
	prev := vec3.Dot(r.rec.Fingers[sim.IndexFinger].ForceDes, dir)
	for k := range 40 {
		r.tick()
		f := vec3.Dot(r.rec.Fingers[sim.IndexFinger].ForceDes, dir)
		if f-prev > slew+1e-9 {
			t.Fatalf("tick %d: force rose %.4f N, slew limit %.4f N per tick", k, f-prev, slew)
		}
		prev = f
	}
	if math.Abs(prev-1.5) > 1e-9 {
		t.Errorf("after 40 ms the force is %.4f N, want 1.5 N", prev)
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
	if localFinite(&sim.LocalModel{Valid: true, X0: [3]float64{math.Inf(1)}}) || !localFinite(&sim.LocalModel{Depth: math.NaN()}) {
		t.Error("localFinite")
	}
}

func TestRecordCSV(t *testing.T) {
	r := newHoldRig(t, DefaultConfig())
	r.tick()
	row := string(r.rec.AppendCSV(nil))
	h := TickCSVHeader()
	if nh, nr := strings.Count(h, ","), strings.Count(row, ","); nh != nr {
		t.Fatalf("header has %d commas, row %d\n%s\n%s", nh, nr, h, row)
	}
	if !strings.Contains(row, ",active,none") || !strings.HasPrefix(h, "t_s,tick,overrun,thumb_x_m") {
		t.Errorf("row %q", row)
	}
	buf := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() { buf = r.rec.AppendCSV(buf[:0]) }); n != 0 {
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

func TestTickAllocs(t *testing.T) {
	r := newHoldRig(t, DefaultConfig())
	pressBoth(r)
	if n := testing.AllocsPerRun(500, r.tick); n != 0 {
		t.Errorf("Tick allocates %v times per call", n)
	}
}

func TestConfig(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	c2, err := ParseConfig([]byte("[force]\nkf_mps_per_n = 0.5\n"))
	if err != nil || c2.Force.Kf != 0.5 || c2.Force.Ki != c.Force.Ki {
		t.Errorf("override: %v %+v", err, c2.Force)
	}
	for _, bad := range []string{
		"[force]\nkf = 1\n",
		"[force]\nbutter_hz = 600.0\n",
		"[velocity]\ncheby_order = 0\n",
		"[safety]\nstop_ramp_ms = 20.0\n",
		"[force]\nfeedforward = 2.0\n",
		"period_ms = nan\n",
	} {
		if _, err := ParseConfig([]byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
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

// TestDeterministic: two runs give bit-identical records.
func TestDeterministic(t *testing.T) {
	run := func() []TickRecord {
		r := newHoldRig(t, DefaultConfig())
		pressBoth(r)
		var out []TickRecord
		for range 200 {
			r.tick()
			out = append(out, r.rec)
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("tick %d differs", i)
		}
	}
}

func BenchmarkTick(b *testing.B) {
	p := twin.DefaultExoParams()
	var exos [sim.NumFingers]*twin.Exo
	var fingers [sim.NumFingers]Finger
	for f := range sim.NumFingers {
		e, err := twin.NewExo(p, twin.DefaultBase(f), holdIntent{homePad(p, f)}, f)
		if err != nil {
			b.Fatal(err)
		}
		exos[f] = e
		fingers[f] = Finger{Device: unclocked{e}, Kin: e.Kinematics(), Base: e.Base()}
	}
	s, err := NewServo(DefaultConfig(), fingers)
	if err != nil {
		b.Fatal(err)
	}
	var in sim.Output
	var out sim.FingerState
	var rec TickRecord
	tt := time.Duration(0)
	for tt < 300*time.Millisecond {
		for _, e := range exos {
			e.Advance(tt)
		}
		s.Tick(tt, &in, &out, &rec)
		tt += time.Millisecond
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for _, e := range exos {
			e.Advance(tt)
		}
		b.StartTimer()
		s.Tick(tt, &in, &out, &rec)
		tt += time.Millisecond
	}
}

func sinDeg(d float64) float64 { return math.Sin(d * math.Pi / 180) }

// SetForceScale scales the rendered force: with a constant-force cloth
// model the desired force and the force measured at the fingertip follow
// the scale; bad scales are refused.
func TestForceScale(t *testing.T) {
	p := twin.DefaultExoParams()
	measure := func(k float64) (des, meas float64) {
		r, err := newSimRig(DefaultConfig(), p, [sim.NumFingers]twin.Intent{nil, holdIntent{homePad(p, sim.IndexFinger)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.servo.SetForceScale(k); err != nil {
			t.Fatal(err)
		}
		if err := r.waitActive(time.Second); err != nil {
			t.Fatal(err)
		}
		forceModel(&r.in.Local[sim.IndexFinger], [3]float64{0, 0, 0.5}, 1)
		var n int
		for end := r.t + time.Second; r.t < end; n++ {
			r.tick()
			if end-r.t < 200*time.Millisecond {
				des += r.rec.Fingers[sim.IndexFinger].ForceDes[2]
				meas += r.rec.Fingers[sim.IndexFinger].ForceMeas[2]
			}
		}
		return des / 200, meas / 200
	}
	d1, m1 := measure(1)
	d2, m2 := measure(2)
	if math.Abs(d1-0.5) > 1e-9 || math.Abs(d2-1) > 1e-9 {
		t.Fatalf("desired force %.4f N at scale 1, %.4f N at scale 2; want 0.5 and 1", d1, d2)
	}
	if math.Abs(m2/m1-2) > 0.05 {
		t.Fatalf("measured force %.4f N at scale 1, %.4f N at scale 2: ratio %.3f, want 2", m1, m2, m2/m1)
	}
	for _, k := range []float64{-1, math.NaN(), math.Inf(1), 11} {
		s := &Servo{scale: 1}
		if err := s.SetForceScale(k); err == nil || s.ForceScale() != 1 {
			t.Errorf("scale %v accepted", k)
		}
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
	enableAt := time.Duration(cfg.Safety.RecoverMs * 1e6)
	for _, c := range []struct {
		after  int
		rampMs float64
	}{{0, 50}, {5, 50}, {15, 50}, {5, 0}, {5, 2}} {
		after := c.after
		cfg := cfg
		cfg.Safety.EnableRampMs = c.rampMs
		activeBy := enableAt + time.Duration((max(c.rampMs, float64(after))+2)*1e6)
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
	wait := time.Duration(cfg.Safety.EnableWaitMs * 1e6)
	var enabling, timedOut, again time.Duration = -1, -1, -1
	run(cfg, &lateOn{never: true}, enableAt+wait+time.Duration((cfg.Safety.StopRampMs+cfg.Safety.RecoverMs+5)*1e6), func(at time.Duration, fr *FingerRecord) {
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
