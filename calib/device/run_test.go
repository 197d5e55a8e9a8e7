package device

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/vec3"
)

var created = func() time.Time { return time.Date(2026, 5, 27, 9, 0, 0, 0, time.UTC) }

// jigRig is a simulated exoskeleton with the kinematics truth whose finger
// is a jig's locating cone (see Jig), on a virtual clock.
type jigRig struct {
	dev   *twin.Exo
	jig   *Jig
	clock *VirtualClock
	base  exo.Pose
}

func newJigRig(t *testing.T, truth exo.Params) *jigRig {
	t.Helper()
	p := twin.DefaultExoParams()
	p.Kinematics = truth
	p.Finger = twin.FingerParams{Mass: 0.1, Stiffness: 2e6, Damping: 800}
	p.Pulp = twin.PulpParams{Stiffness: 2e6, Damping: 500}
	// The kinematic model maps rotor (encoder) angles to the pad; the
	// cable's stretch under the rotors' friction (up to Coulomb/stiffness,
	// 0.18 mrad) is not part of it, so the stand's device is rigid.
	p.Drive.TransmissionStiffness = [3]float64{}
	p.Substeps = 50 // 20 µs
	base := twin.DefaultBase(1)
	nom, _ := exo.New(exo.DefaultParams())
	jig := NewJig(base, nom.Forward(nom.Params().Home))
	dev, err := twin.NewExo(p, base, jig, 1)
	if err != nil {
		t.Fatal(err)
	}
	return &jigRig{dev: dev, jig: jig, clock: NewVirtualClock(dev), base: base}
}

const (
	jigTravel = 200 * time.Millisecond
	jigSettle = 40 * time.Millisecond
)

// TestRunKinematicsSim calibrates a simulated exoskeleton whose true
// kinematics differ from nominal (trueParams: encoder zeros off by 1.8° to
// 3.1°, links by 0.3 to 0.5 mm, axes by 0.25° to 0.3°) and whose encoders
// are quantised (one motor count is 27 µrad at the joint), from the
// 15-point plan, the jig carrying the pad. It then carries the pad to 12
// other points of the workspace and compares the pad the calibrated and
// the nominal kinematics put at the encoder readings with the true pad.
func TestRunKinematicsSim(t *testing.T) {
	nom, truth := exo.DefaultParams(), trueParams()
	plan, err := PlanPoses(nom, DefaultKinParams(), 15)
	if err != nil {
		t.Fatal(err)
	}
	rig := newJigRig(t, truth)
	res := rig.dev.Spec().EncoderRes
	s := Session{Finger: "index", Clock: rig.clock, Samples: 20, Now: created,
		Prompt: rig.jig.Operator(rig.clock, plan.Points, jigTravel, jigSettle)}
	c, err := RunKinematics(context.Background(), rig.dev, s, nom, plan)
	if err != nil {
		t.Fatal(err)
	}
	rep := c.Report
	t.Logf("encoder resolution %.3g rad; %d poses, %d iterations, cond %.3g, noise scale %.2f", res, rep.Poses, rep.Iterations, rep.Cond, rep.NoiseScale)
	t.Logf("jig residuals: nominal RMS %.0f µm (max %.0f), calibrated RMS %.2f µm (max %.2f)", rep.NominalRMSUm, rep.NominalMaxUm, rep.ResidualRMSUm, rep.ResidualMaxUm)
	if c.Device != "haptex-sim-exo SIM-0000" || c.Finger != "index" || !c.Created.Equal(created()) || rep.EncoderResRad != res {
		t.Errorf("file header %q %q %v, encoder %g", c.Device, c.Finger, c.Created, rep.EncoderResRad)
	}

	// Stated tolerances: encoder zeros and twists within 0.005° (87 µrad),
	// lengths within 10 µm; each error also within 5 standard errors.
	for _, v := range c.Params {
		tv := *v.Param.field(&truth)
		tol, unit, f := 10e-6, "µm", 1e6
		if v.Param.Angle() {
			tol, unit, f = 0.005*deg, "m°", 1e3/deg
		}
		e := v.Value - tv
		t.Logf("%-16s nominal error %9.1f %s, calibrated error %6.2f %s, standard error %.2f %s", v.Param, f*(v.Nominal-tv), unit, f*e, unit, f*v.StdErr, unit)
		if math.Abs(e) > tol || math.Abs(e) > 5*v.StdErr {
			t.Errorf("%s: calibrated %.6g, true %.6g: error %.3g %s, standard error %.3g %s", v.Param, v.Value, tv, f*e, unit, f*v.StdErr, unit)
		}
	}

	cal, err := c.Apply(nom)
	if err != nil {
		t.Fatal(err)
	}
	mc, _ := exo.New(cal)
	mn, _ := exo.New(nom)
	mt, _ := exo.New(truth)
	rng := rand.New(rand.NewPCG(11, 12))
	var pre, post, preMax, postMax float64
	const nval = 12
	for range nval {
		var q [3]float64
		for k := range 3 {
			lo, hi := truth.JointMin[k]+0.2, truth.JointMax[k]-0.2
			q[k] = lo + (hi-lo)*rng.Float64()
		}
		target := mt.Forward(q)
		rig.jig.MoveTo(rig.clock.Now(), target, jigTravel)
		rig.clock.Sleep(jigTravel + jigSettle)
		rd, err := readExo(context.Background(), rig.dev, &s, 20)
		if err != nil {
			t.Fatal(err)
		}
		pad := rig.base.InvPoint(rig.dev.Truth().Pad)
		en := 1e6 * vec3.Norm(vec3.Sub(mn.Forward(rd.joints), pad))
		ec := 1e6 * vec3.Norm(vec3.Sub(mc.Forward(rd.joints), pad))
		pre, post = pre+en*en/nval, post+ec*ec/nval
		preMax, postMax = math.Max(preMax, en), math.Max(postMax, ec)
	}
	pre, post = math.Sqrt(pre), math.Sqrt(post)
	t.Logf("fingertip error at %d validation points: nominal RMS %.0f µm (max %.0f), calibrated RMS %.2f µm (max %.2f): %.0f× smaller",
		nval, pre, preMax, post, postMax, pre/post)
	if post > 10 || postMax > 20 || pre/post < 200 {
		t.Errorf("calibrated fingertip error RMS %.3g µm (max %.3g), nominal %.3g µm: want below 10 µm (max 20) and 200× smaller", post, postMax, pre)
	}

	var buf bytes.Buffer
	if err := c.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadKinematicCalibration(&buf); err != nil {
		t.Fatal(err)
	}
}

// TestRunKinematicsErrors: an operator who gives up, a device that goes
// away and a pad that never comes to rest each stop the run with a clear
// error.
func TestRunKinematicsErrors(t *testing.T) {
	nom := exo.DefaultParams()
	plan, err := PlanPoses(nom, DefaultKinParams(), 6)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	rig := newJigRig(t, nom)
	quit := errors.New("operator quit")
	s := Session{Finger: "thumb", Clock: rig.clock, Samples: 10, Prompt: func(st Step) error {
		if st.Index == 2 {
			return quit
		}
		return rig.jig.Operator(rig.clock, plan.Points, jigTravel, jigSettle)(st)
	}}
	if _, err := RunKinematics(ctx, rig.dev, s, nom, plan); !errors.Is(err, quit) || !strings.Contains(err.Error(), "pose 3 of 6") {
		t.Errorf("operator quit: %v", err)
	}

	rig = newJigRig(t, nom)
	s.Clock = rig.clock
	s.Prompt = func(st Step) error {
		if st.Index == 1 {
			rig.dev.Unplug()
		}
		return rig.jig.Operator(rig.clock, plan.Points, jigTravel, jigSettle)(st)
	}
	if _, err := RunKinematics(ctx, rig.dev, s, nom, plan); !errors.Is(err, devices.ErrDisconnected) {
		t.Errorf("unplugged: %v", err)
	}

	// The operator confirms while the jig is still on its way: the
	// joints are moving through every reading window.
	rig = newJigRig(t, nom)
	s.Clock = rig.clock
	s.Prompt = func(st Step) error {
		rig.jig.MoveTo(rig.clock.Now(), plan.Points[st.Index], time.Second)
		rig.clock.Sleep(100 * time.Millisecond)
		return nil
	}
	if _, err := RunKinematics(ctx, rig.dev, s, nom, plan); err == nil || !strings.Contains(err.Error(), "still moving") {
		t.Errorf("moving pad: %v", err)
	}

	rig = newJigRig(t, nom)
	s.Clock = rig.clock
	s.Prompt = rig.jig.Operator(rig.clock, plan.Points, jigTravel, jigSettle)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := RunKinematics(cctx, rig.dev, s, nom, plan); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := RunKinematics(ctx, rig.dev, Session{Finger: "thumb"}, nom, plan); err == nil {
		t.Error("session without a prompt accepted")
	}
	if _, err := RunKinematics(ctx, rig.dev, s, nom, &PosePlan{}); err == nil {
		t.Error("empty plan accepted")
	}
}

// noisyVibrometer is a laser vibrometer on the simulated array: the
// delivered amplitude with 0.3% Gaussian measurement noise (0.03 dB).
type noisyVibrometer struct {
	DeliveredVibrometer
	rng *rand.Rand
}

func (v noisyVibrometer) Measure(pin, hz int) (float64, error) {
	a, err := v.DeliveredVibrometer.Measure(pin, hz)
	return a * (1 + 0.003*v.rng.NormFloat64()), err
}

// TestRunTactileSim calibrates a simulated array whose pins' sensitivity
// spreads by 1.5 dB, then drives every pin at once with the corrections
// applied as the renderer applies Pin40DB and Pin320DB, and measures
// (Delivered, after the envelope settles) every pin within 0.1 dB of the
// command, at levels the calibration did not use.
func TestRunTactileSim(t *testing.T) {
	tp := twin.DefaultTactileParams()
	tp.PinSpreadDB = 1.5
	arr, err := twin.NewTactile(tp, 1)
	if err != nil {
		t.Fatal(err)
	}
	clock := NewVirtualClock(arr)
	vib := noisyVibrometer{DeliveredVibrometer{arr}, rand.New(rand.NewPCG(5, 6))}
	prompts := 0
	s := Session{Finger: "index", Clock: clock, Now: created, Prompt: func(Step) error { prompts++; return nil }}
	plan := DefaultTactilePlan(arr.Spec())
	c, err := RunTactile(context.Background(), arr, vib, s, plan)
	if err != nil {
		t.Fatal(err)
	}
	rep := c.Report
	t.Logf("%d prompts, %d samples; residual RMS %.3f dB, max %.3f dB; verification max %.3f dB; usable max %.0f µm at 40 Hz, %.1f µm at 320 Hz; warnings %q",
		prompts, len(rep.Samples), rep.ResidualRMSDB, rep.ResidualMaxDB, rep.VerifyMaxDB, rep.UsableMax40Um, rep.UsableMax320Um, rep.Warnings)
	if prompts != devices.Pins || len(rep.Samples) != devices.Pins*4 || len(rep.Verify) != devices.Pins*4 {
		t.Errorf("%d prompts, %d samples, %d verifications", prompts, len(rep.Samples), len(rep.Verify))
	}
	if rep.VerifyMaxDB > 0.1 {
		t.Errorf("verification max %.3f dB", rep.VerifyMaxDB)
	}

	spread := func(pin [devices.Pins]float64) (lo, hi float64) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, v := range pin {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		return lo, hi
	}
	lo, hi := spread(c.Pin40DB)
	t.Logf("corrections at 40 Hz from %+.2f to %+.2f dB", lo, hi)

	measureAll := func(a40, a320 float64, correct bool) (worst float64) {
		var f devices.TactileFrame
		for p := range devices.Pins {
			f.A40Um[p], f.A320Um[p] = a40, a320
			if correct {
				f.A40Um[p] *= math.Pow(10, c.Pin40DB[p]/20)
				f.A320Um[p] *= math.Pow(10, c.Pin320DB[p]/20)
			}
		}
		if err := arr.WriteFrame(&f); err != nil {
			t.Fatal(err)
		}
		clock.Sleep(50 * time.Millisecond)
		var d devices.TactileFrame
		arr.Delivered(&d)
		for p := range devices.Pins {
			worst = math.Max(worst, math.Abs(20*math.Log10(d.A40Um[p]/a40)))
			worst = math.Max(worst, math.Abs(20*math.Log10(d.A320Um[p]/a320)))
		}
		return worst
	}
	before := measureAll(50, 5, false)
	t.Logf("all pins driven at 50 µm (40 Hz) and 5 µm (320 Hz): worst pin %.2f dB off before correction", before)
	if before < 1.5 {
		t.Errorf("uncorrected array only %.2f dB off: the test cannot tell a correction from none", before)
	}
	for _, lv := range [][2]float64{{5, 0.5}, {50, 5}, {120, 15}} {
		w := measureAll(lv[0], lv[1], true)
		t.Logf("corrected, %g µm at 40 Hz and %g µm at 320 Hz: worst pin %.3f dB off", lv[0], lv[1], w)
		if w > 0.1 {
			t.Errorf("corrected array %.3f dB off at %v µm", w, lv)
		}
	}

	var buf bytes.Buffer
	if err := c.Write(&buf); err != nil {
		t.Fatal(err)
	}
	d, err := ReadTactileCalibration(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if d.Pin40DB != c.Pin40DB || d.Pin320DB != c.Pin320DB {
		t.Error("corrections changed on reload")
	}
}

// deadPinArray is the simulated array with one contactor that does not
// move.
type deadPinArray struct {
	*twin.Tactile
	dead int
}

func (a deadPinArray) Delivered(dst *devices.TactileFrame) bool {
	a.Tactile.Delivered(dst)
	dst.A40Um[a.dead], dst.A320Um[a.dead] = 0, 0
	return true
}

func TestRunTactileErrors(t *testing.T) {
	arr, err := twin.NewTactile(twin.DefaultTactileParams(), 0)
	if err != nil {
		t.Fatal(err)
	}
	clock := NewVirtualClock(arr)
	s := Session{Finger: "thumb", Clock: clock, Prompt: func(Step) error { return nil }}
	plan := DefaultTactilePlan(arr.Spec())
	ctx := context.Background()
	_, err = RunTactile(ctx, arr, DeliveredVibrometer{deadPinArray{arr, 7}}, s, plan)
	if err == nil || !strings.Contains(err.Error(), "pin 7") {
		t.Errorf("dead pin: %v", err)
	}
	// The array is left silent after the error.
	clock.Sleep(50 * time.Millisecond)
	var d devices.TactileFrame
	arr.Delivered(&d)
	// The contactors ring down: after 50 ms they move by picometres.
	for p := range devices.Pins {
		if d.A40Um[p] > 1e-6 || d.A320Um[p] > 1e-6 {
			t.Fatalf("pin %d still vibrating after the run: %g, %g µm", p, d.A40Um[p], d.A320Um[p])
		}
	}
	bad := plan
	bad.Levels40Um = []float64{500}
	if _, err := RunTactile(ctx, arr, DeliveredVibrometer{arr}, s, bad); err == nil {
		t.Error("level beyond the array's limit accepted")
	}
	quit := errors.New("operator quit")
	s.Prompt = func(st Step) error {
		if st.Index == 3 {
			return quit
		}
		return nil
	}
	if _, err := RunTactile(ctx, arr, DeliveredVibrometer{arr}, s, plan); !errors.Is(err, quit) {
		t.Errorf("operator quit: %v", err)
	}
	arr.Close()
	s.Prompt = func(Step) error { return nil }
	if _, err := RunTactile(ctx, arr, DeliveredVibrometer{arr}, s, plan); !errors.Is(err, devices.ErrDisconnected) {
		t.Errorf("closed array: %v", err)
	}
}

// loadRig is a fingertip exoskeleton clamped on a calibration stand: its
// force sensor is the strain-gauge model of force_test.go and the operator
// hangs the masses of the load plan on the pad. It reports a fresh
// sample each sample period of its clock.
type loadRig struct {
	s       *sensor
	clock   *VirtualClock
	load    [3]float64
	enabled bool
	seq     uint32
	last    time.Duration
}

func (r *loadRig) Spec() devices.ExoSpec {
	return devices.ExoSpec{Model: "stand", Serial: "7", DoF: 3, SamplePeriod: time.Millisecond}
}

func (r *loadRig) Read(dst *devices.ExoState) error {
	now := r.clock.Now()
	dst.Stale = now == r.last
	if !dst.Stale {
		r.seq++
		r.last = now
		dst.Force = r.s.read(r.load)
	}
	dst.Seq, dst.Enabled = r.seq, r.enabled
	return nil
}

func (r *loadRig) Write(*devices.ExoCommand) error { return nil }
func (r *loadRig) Enable(on bool) error            { r.enabled = on; return nil }
func (r *loadRig) Close() error                    { return nil }

// TestRunForce runs the force calibration on the stand with an operator
// who hangs each mass of the plan, and recovers the sensor's bias and
// gain within 1%.
func TestRunForce(t *testing.T) {
	plan, err := LoadPlan([]float64{0.1, 0.2, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	rig := &loadRig{s: crossTalkSensor(12, 9), clock: NewVirtualClock(), enabled: true}
	s := Session{Finger: "thumb", Clock: rig.clock, Samples: 50, Now: created, Prompt: func(st Step) error {
		rig.load = plan[st.Index].LoadN
		return nil
	}}
	c, err := RunForce(context.Background(), rig, s, plan, Matrix)
	if err != nil {
		t.Fatal(err)
	}
	if rig.enabled {
		t.Error("motors left on during the force calibration")
	}
	for i := range 3 {
		if e := math.Abs(c.Bias[i]-rig.s.bias[i]) / math.Abs(rig.s.bias[i]); e > 0.01 {
			t.Errorf("bias %d off by %.3g%%", i, 100*e)
		}
		for j := range 3 {
			if e := math.Abs(c.Gain[i][j]-rig.s.gain[i][j]) / rig.s.gain[i][i]; e > 0.01 {
				t.Errorf("gain %d,%d off by %.3g%%", i, j, 100*e)
			}
		}
	}
	t.Logf("residual RMS %.4f N; device %q", c.Report.ResidualRMSN, c.Device)
	if c.Device != "stand 7" || c.Finger != "thumb" {
		t.Errorf("header %q %q", c.Device, c.Finger)
	}
	if !strings.Contains(plan[1].Instruction, "pulls along −x") || plan[1].LoadN[0] <= 0 {
		t.Errorf("first load %q, %v: a fingertip force along +x is a mass pulling along −x", plan[1].Instruction, plan[1].LoadN)
	}

	// A device that stops sampling is an error, not a hang.
	frozen := &loadRig{s: crossTalkSensor(1, 1), clock: NewVirtualClock()}
	s.Clock = RealClock{}
	s.Samples = 2
	frozen.last = frozen.clock.Now()
	if _, err := RunForce(context.Background(), frozen, s, plan, Matrix); err == nil || !strings.Contains(err.Error(), "no fresh sample") {
		t.Errorf("frozen device: %v", err)
	}
}

func TestVirtualClock(t *testing.T) {
	arr, _ := twin.NewTactile(twin.DefaultTactileParams(), 0)
	c := NewVirtualClock(arr)
	var f devices.TactileFrame
	f.A40Um[0] = 10
	arr.WriteFrame(&f)
	// The array's vibrometer reads the last 25 ms.
	c.Sleep(30 * time.Millisecond)
	c.Sleep(-time.Second)
	if c.Now() != 30*time.Millisecond {
		t.Errorf("now %v", c.Now())
	}
	var d devices.TactileFrame
	arr.Delivered(&d)
	if d.A40Um[0] < 5 {
		t.Errorf("array not advanced: pin 0 at %g µm", d.A40Um[0])
	}
}

// motorsOnExo is the simulated exoskeleton whose samples report its
// motors on from its after-th read on.
type motorsOnExo struct {
	*twin.Exo
	reads, after int
}

func (m *motorsOnExo) Read(st *devices.ExoState) error {
	err := m.Exo.Read(st)
	if m.reads++; m.reads > m.after {
		st.Enabled = true
	}
	return err
}

// A calibration, which needs the motors off, stops with a clear error on a
// device that does not report them off when asked, or that reports them
// on in the middle of it; before, it averaged those samples as readings.
func TestCalibrationNeedsTheMotorsOff(t *testing.T) {
	nom := exo.DefaultParams()
	plan, err := PlanPoses(nom, DefaultKinParams(), 6)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		after int
		want  string
	}{
		{"never off", 0, "still reports its motors on 100 samples after the host switched them off"},
		{"on again", 30, "reports the motors on, which the calibration switched off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rig := newJigRig(t, nom)
			dev := &motorsOnExo{Exo: rig.dev, after: tc.after}
			s := Session{Finger: "index", Clock: rig.clock, Samples: 10, Prompt: rig.jig.Operator(rig.clock, plan.Points, jigTravel, jigSettle)}
			if _, err := RunKinematics(context.Background(), dev, s, nom, plan); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want %q", err, tc.want)
			}
		})
	}
}
