package twin

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/internal/vec3"

	"github.com/haptex/haptex/devices/exo"
)

// holdIntent keeps the finger's intent at one world point.
type holdIntent struct{ pos [3]float64 }

func (h holdIntent) At(time.Duration, int) (pos, vel [3]float64) { return h.pos, [3]float64{} }

// testBase places a device 15 cm behind the origin on +z, base x towards
// -z (the index finger's side), base z up.
func testBase() exo.Pose {
	return exo.PoseFromAxes([3]float64{0, 0, -1}, [3]float64{0, 1, 0}, [3]float64{0, 0.1, 0.15})
}

func newTestExo(t testing.TB, p ExoParams) *Exo {
	t.Helper()
	kin, err := exo.New(p.Kinematics)
	if err != nil {
		t.Fatal(err)
	}
	base := testBase()
	home := base.Point(kin.Forward(kin.Params().Home))
	e, err := NewExo(p, base, holdIntent{home}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestDefaultsHardToMove checks the floor for the default plant
// over the well-conditioned workspace: apparent fingertip mass >= 80 g,
// Coulomb >= 0.3 N, viscous >= 2 N·s/m.
func TestDefaultsHardToMove(t *testing.T) {
	e := newTestExo(t, DefaultExoParams())
	rng := rand.New(rand.NewPCG(7, 8))
	kp := e.kin.Params()
	worst := TipFigures{math.Inf(1), math.Inf(1), math.Inf(1)}
	for n := 0; n < 3000; {
		var q [3]float64
		for i := range 3 {
			q[i] = kp.JointMin[i] + rng.Float64()*(kp.JointMax[i]-kp.JointMin[i])
		}
		j := e.kin.Jacobian(q)
		jjt := j.T()
		jjt = j.Mul(&jjt)
		if math.Sqrt(math.Max(exo.SymEigMin(&jjt), 0)) < 0.01 {
			continue
		}
		n++
		tf := e.TipFiguresAt(q)
		worst.MassKg = math.Min(worst.MassKg, tf.MassKg)
		worst.CoulombN = math.Min(worst.CoulombN, tf.CoulombN)
		worst.ViscousNsm = math.Min(worst.ViscousNsm, tf.ViscousNsm)
	}
	t.Logf("workspace minimum: mass %.4f kg, Coulomb %.3f N, viscous %.3f N·s/m; home %+v", worst.MassKg, worst.CoulombN, worst.ViscousNsm, e.TipFigures())
	if worst.MassKg < 0.080 || worst.CoulombN < 0.3 || worst.ViscousNsm < 2 {
		t.Errorf("default plant is too easy to move: %+v", worst)
	}
}

// energy returns the plant's total mechanical energy with the intent at xi.
func (e *Exo) energy(xi [3]float64) float64 {
	var lk exo.LinkKin
	e.kin.Links(&lk, e.q, &e.com)
	m := e.linkMass(&lk)
	mq := m.MulVec(e.qd)
	en := 0.5 * vec3.Dot(e.qd, mq)
	for i := range 3 {
		if e.compliant[i] {
			d := e.th[i] - e.q[i]
			en += 0.5*e.rotorM[i]*e.thd[i]*e.thd[i] + 0.5*e.p.Drive.TransmissionStiffness[i]*d*d
		}
	}
	for l := range 3 {
		en -= e.p.Links[l].Mass * vec3.Dot(e.gBase, lk.P[l])
	}
	pad := e.base.Point(e.kin.Forward(e.q))
	d := vec3.Sub(pad, e.xf)
	en += 0.5 * e.p.Pulp.Stiffness * vec3.Dot(d, d)
	en += 0.5 * e.p.Finger.Mass * vec3.Dot(e.vf, e.vf)
	d = vec3.Sub(e.xf, xi)
	en += 0.5 * e.p.Finger.Stiffness * vec3.Dot(d, d)
	return en
}

// TestEnergyConservation checks mass matrix, Coriolis terms, gravity and
// the pad coupling together: without friction or damping the total energy
// of device, finger and springs stays constant while they swing.
func TestEnergyConservation(t *testing.T) {
	t.Run("compliant", func(t *testing.T) { testEnergyConservation(t, DefaultExoParams()) })
	rigid := DefaultExoParams()
	rigid.Drive.TransmissionStiffness = [3]float64{}
	t.Run("rigid", func(t *testing.T) { testEnergyConservation(t, rigid) })
}

func testEnergyConservation(t *testing.T, p ExoParams) {
	p.Drive.TransmissionDamping = [3]float64{}
	p.Drive.Coulomb = [3]float64{}
	p.Drive.Viscous = [3]float64{}
	p.Finger.Damping = 0
	p.Pulp.Damping = 0
	p.Substeps = 50
	e := newTestExo(t, p)
	xi := vec3.Add(e.xf, [3]float64{0.015, -0.01, 0.02})
	e.intent = holdIntent{xi}
	e0 := e.energy(xi)
	maxDev, maxKin := 0.0, 0.0
	for k := 1; k <= 1000; k++ {
		e.Advance(time.Duration(k) * time.Millisecond)
		maxDev = math.Max(maxDev, math.Abs(e.energy(xi)-e0))
		var lk exo.LinkKin
		m := e.massMatrix(e.q, &lk)
		maxKin = math.Max(maxKin, 0.5*vec3.Dot(e.qd, m.MulVec(e.qd)))
	}
	t.Logf("max kinetic energy of the device %.3g J, max |E - E0| = %.3g J", maxKin, maxDev)
	if maxKin < 1e-3 {
		t.Fatalf("the device hardly moved (kinetic energy <= %g J)", maxKin)
	}
	if maxDev > 0.02*maxKin {
		t.Errorf("energy drift %.3g J is more than 2%% of the exchanged %.3g J", maxDev, maxKin)
	}
}

// TestStaticBalance holds a frictionless device still against the finger
// with joint torques τ = -Jᵀ F - τ_g: the pulp force settles at F.
func TestStaticBalance(t *testing.T) {
	p := DefaultExoParams()
	p.Drive.Coulomb = [3]float64{}
	p.Transport.CommandDelay = 0
	e := newTestExo(t, p)
	if err := e.Enable(true); err != nil {
		t.Fatal(err)
	}
	want := [3]float64{0.4, -0.3, 0.8} // plate on finger, world [N]
	var cmd devices.ExoCommand
	for k := 1; k <= 3000; k++ {
		var lk exo.LinkKin
		e.massMatrix(e.q, &lk)
		var tauG [3]float64
		for l := range 3 {
			tauG = vec3.Add(tauG, lk.Jv[l].MulTransVec(vec3.Scale(e.p.Links[l].Mass, e.gBase)))
		}
		j := e.kin.Jacobian(e.q)
		tau := j.MulTransVec(e.base.InvVec(want))
		cmd.Torque = vec3.Sub(tau, tauG)
		if err := e.Write(&cmd); err != nil {
			t.Fatal(err)
		}
		e.Advance(time.Duration(k) * time.Millisecond)
	}
	got := e.Truth().Force
	if d := vec3.Norm(vec3.Sub(got, want)); d > 1e-3 {
		t.Errorf("pulp force %v, want %v (|d| = %g N)", got, want, d)
	}
}

// TestStiction: a torque below the Coulomb level leaves a weightless
// joint at rest; one above it moves it.
func TestStiction(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scale float64
		moves bool
	}{{"below", 0.9, false}, {"above", 1.2, true}} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultExoParams()
			p.Links = [3]LinkParams{}
			p.Drive.TransmissionStiffness = [3]float64{} // a weightless link needs the rotor on it
			p.Pulp.Stiffness = 1e-6
			p.Pulp.Damping = 0
			p.Transport.CommandDelay = 0
			e := newTestExo(t, p)
			_ = e.Enable(true)
			q0 := e.q
			cmd := devices.ExoCommand{Torque: [3]float64{0, tc.scale * p.Drive.Coulomb[1], 0}}
			_ = e.Write(&cmd)
			e.Advance(100 * time.Millisecond)
			moved := math.Abs(e.q[1]-q0[1]) > 1e-6
			if moved != tc.moves {
				t.Errorf("torque %.2f x Coulomb: joint 2 moved %g rad", tc.scale, e.q[1]-q0[1])
			}
		})
	}
}

// TestSensorStatistics: at rest the sensor reads the true force plus the
// bias, with the configured noise, on the resolution grid.
func TestSensorStatistics(t *testing.T) {
	p := DefaultExoParams()
	e := newTestExo(t, p)
	var st devices.ExoState
	const n = 8000
	var sum, sum2 [3]float64
	for k := 1; k <= n; k++ {
		e.Advance(time.Duration(k) * time.Millisecond)
		if err := e.Read(&st); err != nil {
			t.Fatal(err)
		}
		var kk exo.Kin
		e.kin.Eval(&kk, e.q)
		truth := kk.R.MulTransVec(e.base.InvVec(e.Truth().Force))
		for i := range 3 {
			r := st.Force[i] / p.Sensor.Resolution
			if math.Abs(r-math.Round(r)) > 1e-9 {
				t.Fatalf("force %g not on the %g N grid", st.Force[i], p.Sensor.Resolution)
			}
			d := st.Force[i] - truth[i]
			sum[i] += d
			sum2[i] += d * d
		}
	}
	for i := range 3 {
		mean := sum[i] / n
		rms := math.Sqrt(sum2[i]/n - mean*mean)
		want := math.Sqrt(p.Sensor.NoiseRMS*p.Sensor.NoiseRMS + p.Sensor.Resolution*p.Sensor.Resolution/12)
		if math.Abs(mean-p.Sensor.Bias[i]) > 3e-4 || math.Abs(rms-want) > 0.05*want {
			t.Errorf("axis %d: mean %.4g (bias %.4g), rms %.4g (want %.4g)", i, mean, p.Sensor.Bias[i], rms, want)
		}
		if rms < 0.005 {
			t.Errorf("axis %d: noise %.4g N RMS below the 5 mN floor", i, rms)
		}
	}
}

// TestTransportDelay: a torque written after sample k acts from sample
// k+CommandDelay, and Read reports sample k-SensorDelay.
func TestTransportDelay(t *testing.T) {
	for _, d := range []int{0, 1, 2} {
		p := DefaultExoParams()
		p.Transport.CommandDelay = d
		p.Transport.SensorDelay = d
		e := newTestExo(t, p)
		_ = e.Enable(true)
		e.Advance(5 * time.Millisecond)
		cmd := devices.ExoCommand{Torque: [3]float64{0.5, 0, 0}}
		_ = e.Write(&cmd)
		for k := 0; k <= d; k++ {
			on := e.Truth().Torque[0] != 0
			if on != (k == d) {
				t.Errorf("delay %d: %d ms after the write the torque is %g", d, k, e.Truth().Torque[0])
			}
			e.Advance(time.Duration(6+k) * time.Millisecond)
		}
		var st devices.ExoState
		_ = e.Read(&st)
		if want := uint32(6 + d - d); st.Seq != want || st.DeviceTime != time.Duration(want)*time.Millisecond {
			t.Errorf("delay %d: read sample %d at %v, want %d", d, st.Seq, st.DeviceTime, want)
		}
	}
}

func TestEncoderQuantisation(t *testing.T) {
	e := newTestExo(t, DefaultExoParams())
	var st devices.ExoState
	e.Advance(time.Millisecond)
	_ = e.Read(&st)
	for i := range 3 {
		c := st.Joint[i] / e.encStep[i]
		// The encoder sits on the motor: it reads the rotor's angle.
		if math.Abs(c-math.Round(c)) > 1e-6 || math.Abs(st.Joint[i]-e.th[i]) > e.encStep[i] {
			t.Errorf("joint %d reads %g, true rotor %g, step %g", i, st.Joint[i], e.th[i], e.encStep[i])
		}
	}
}

// TestDeterministic: two devices with one seed give bit-identical runs.
func TestDeterministic(t *testing.T) {
	run := func() []devices.ExoState {
		e := newTestExo(t, DefaultExoParams())
		_ = e.Enable(true)
		var out []devices.ExoState
		var st devices.ExoState
		for k := 1; k <= 300; k++ {
			cmd := devices.ExoCommand{Torque: [3]float64{0.05 * math.Sin(float64(k)/20), 0.02, -0.01}}
			_ = e.Write(&cmd)
			e.Advance(time.Duration(k) * time.Millisecond)
			_ = e.Read(&st)
			out = append(out, st)
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("sample %d differs: %+v vs %+v", i, a[i], b[i])
		}
	}
}

func TestFaultInjection(t *testing.T) {
	e := newTestExo(t, DefaultExoParams())
	var st devices.ExoState
	_ = e.Enable(true)
	e.Advance(2 * time.Millisecond)

	e.Unplug()
	if err := e.Read(&st); !errors.Is(err, devices.ErrDisconnected) {
		t.Errorf("Read after Unplug: %v", err)
	}
	if err := e.Write(&devices.ExoCommand{}); !errors.Is(err, devices.ErrDisconnected) {
		t.Errorf("Write after Unplug: %v", err)
	}
	e.Replug()
	if err := e.Read(&st); err != nil || st.Enabled {
		t.Errorf("after Replug: err %v, enabled %v (want nil, false)", err, st.Enabled)
	}

	_ = e.Enable(true)
	if err := e.Write(&devices.ExoCommand{Torque: [3]float64{math.NaN(), 0, 0}}); err == nil {
		t.Error("NaN torque accepted")
	}
	e.Advance(4 * time.Millisecond)
	_ = e.Read(&st)
	if st.Fault&FaultBadCommand == 0 || e.Truth().Torque != [3]float64{} {
		t.Errorf("after a NaN command: fault %b, torque %v", st.Fault, e.Truth().Torque)
	}

	e.Silence(true)
	e.Advance(10 * time.Millisecond)
	_ = e.Read(&st)
	seq := st.Seq
	e.Advance(12 * time.Millisecond)
	_ = e.Read(&st)
	if !st.Stale || st.Seq != seq {
		t.Errorf("silent device: stale %v seq %d -> %d", st.Stale, seq, st.Seq)
	}
	e.Silence(false)

	e.InjectSpike([3]float64{30, 0, 0})
	e.Advance(13 * time.Millisecond)
	e.Advance(14 * time.Millisecond)
	_ = e.Read(&st)
	if st.Force[0] < 25 {
		t.Errorf("spike not seen: %v", st.Force)
	}

	_ = e.Close()
	if err := e.Read(&st); !errors.Is(err, devices.ErrDisconnected) {
		t.Errorf("Read after Close: %v", err)
	}
}

func TestSpec(t *testing.T) {
	e := newTestExo(t, DefaultExoParams())
	s := e.Spec()
	if s.DoF != 3 || s.Transport != devices.TransportSim || s.SamplePeriod != time.Millisecond {
		t.Errorf("spec %+v", s)
	}
	if s.MaxStiffness < 4000 || s.EncoderRes <= 0 || s.EncoderRes > 1e-4 {
		t.Errorf("spec stiffness %g N/m, encoder %g rad", s.MaxStiffness, s.EncoderRes)
	}
}

func TestExoParamsFile(t *testing.T) {
	p := DefaultExoParams()
	if p.SamplePeriod != time.Millisecond || p.Finger.Mass != 0.008 {
		t.Errorf("defaults: sample period %v, finger %+v", p.SamplePeriod, p.Finger)
	}
	// exo.toml with one change: values out of range, an unknown key, a
	// fourth link, a period that is not a number, no TOML at all.
	src := string(defaultExoTOML)
	for _, edit := range [][2]string{
		{"[finger]\nmass_kg = 0.008", "[finger]\nmass_kg = -1.0"},
		{"[finger]\nmass_kg = 0.008", "[finger]\nmas_kg = 1.0"},
		{"sensor_delay_samples = 1", "sensor_delay_samples = 99"},
		{"# Drive train", "[[kinematics.link]]\na_m = 0.1\n# Drive train"},
		{"substeps = 10", "substeps = 0"},
		{"max_torque_nm = [1.5, 1.5, 0.8]", "max_torque_nm = [1.5, nan, 0.8]"},
		{"sample_period_ms = 1.0", "sample_period_ms = nan"},
		{"sample_period_ms = 1.0", "sample_period_ms = 0.0"},
		{src, "not toml"},
	} {
		if !strings.Contains(src, edit[0]) {
			t.Fatalf("exo.toml has no %q", edit[0])
		}
		if _, err := decodeExoParams([]byte(strings.Replace(src, edit[0], edit[1], 1))); err == nil {
			t.Errorf("accepted %q", edit[1])
		}
	}
}

// The description's JSON (session.json) keeps the sample period in
// milliseconds under the key it has always had, and reads back the same.
func TestExoParamsJSON(t *testing.T) {
	p := DefaultExoParams()
	p.SamplePeriod = 2 * time.Millisecond
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"SamplePeriodMs":2`, `"Substeps":10,`, `"Model":"haptex-sim-exo",`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s: %s", key, b)
		}
	}
	var back ExoParams
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back != p {
		t.Errorf("read back %+v, want %+v", back, p)
	}
}

func TestAdvanceAllocs(t *testing.T) {
	e := newTestExo(t, DefaultExoParams())
	_ = e.Enable(true)
	var st devices.ExoState
	cmd := devices.ExoCommand{Torque: [3]float64{0.01, 0, 0}}
	k := 0
	if n := testing.AllocsPerRun(100, func() {
		k++
		e.Advance(time.Duration(k) * time.Millisecond)
		_ = e.Read(&st)
		_ = e.Write(&cmd)
	}); n != 0 {
		t.Errorf("Advance+Read+Write allocate %v times", n)
	}
}

func BenchmarkAdvance(b *testing.B) {
	e := newTestExo(b, DefaultExoParams())
	k := 0
	b.ReportAllocs()
	for b.Loop() {
		k++
		e.Advance(time.Duration(k) * time.Millisecond)
	}
}

// TestDefaultBaseCoversScript: every pad position of the default handling
// script is reachable, well inside the joint limits and well conditioned.
func TestDefaultBaseCoversScript(t *testing.T) {
	sc := DefaultScript(DefaultScene())
	kin, err := exo.New(DefaultExoParams().Kinematics)
	if err != nil {
		t.Fatal(err)
	}
	for f := range 2 {
		base := DefaultBase(f)
		if !base.Orthonormal(1e-12) {
			t.Fatal("base is not a rotation")
		}
		q := kin.Params().Home
		minSigma := math.Inf(1)
		for ms := 0; ms <= int(sc.Duration()/time.Millisecond); ms += 10 {
			pos, _ := sc.At(time.Duration(ms)*time.Millisecond, f)
			var err error
			q, err = kin.Inverse(base.InvPoint(pos), q, 1e-9)
			if err != nil {
				t.Fatalf("finger %d at %d ms, %v: %v", f, ms, pos, err)
			}
			j := kin.Jacobian(q)
			jjt := j.T()
			jjt = j.Mul(&jjt)
			minSigma = math.Min(minSigma, math.Sqrt(exo.SymEigMin(&jjt)))
		}
		if minSigma < 0.03 {
			t.Errorf("finger %d: the script comes close to a singularity (σ_min %.3g m)", f, minSigma)
		}
		pad := base.Point(kin.Forward(kin.Params().Home))
		n := base.Vec(vec3.Scale(1, [3]float64{1, 0, 0}))
		if math.Abs(math.Abs(pad[2])-0.03) > 1e-3 || n[2]*pad[2] >= 0 {
			t.Errorf("finger %d: home pad %v, pressing %v", f, pad, n)
		}
	}
}

// On the calibration stand the force sensor reads the plate's reaction to
// the load (noise and bias aside), in the sensor frame, and the joints do
// not move.
func TestExoClampedLoad(t *testing.T) {
	p := DefaultExoParams()
	p.Sensor.NoiseRMS = 0
	p.Sensor.Bias = [3]float64{}
	p.Sensor.Resolution = 0
	b := DefaultBase(1)
	kin, err := exo.New(p.Kinematics)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewExo(p, b, holdIntent{b.Point(kin.Forward(p.Kinematics.Home))}, 1)
	if err != nil {
		t.Fatal(err)
	}
	e.Clamp(true)
	load := [3]float64{0, -0.2 * 9.81, 0}
	e.SetPadLoad(load)
	q0 := e.Truth().Q
	var st devices.ExoState
	for ms := 1; ms <= 50; ms++ {
		e.Advance(time.Duration(ms) * time.Millisecond)
	}
	if err := e.Read(&st); err != nil {
		t.Fatal(err)
	}
	if e.Truth().Q != q0 {
		t.Fatalf("clamped joints moved: %v -> %v", q0, e.Truth().Q)
	}
	var k exo.Kin
	e.Kinematics().Eval(&k, q0)
	base := e.Base()
	want := k.R.MulTransVec(base.InvVec(vec3.Scale(-1, load)))
	for i := range 3 {
		if math.Abs(st.Force[i]-want[i]) > 1e-12 {
			t.Fatalf("sensor %v, want %v", st.Force, want)
		}
	}
}

// Skip moves the clock by whole sample periods and leaves the plant where
// it was: the joints, the finger and the sample grid.
func TestSkipStandsStill(t *testing.T) {
	p := DefaultExoParams()
	p.Transport.SensorDelay = 1
	e := newTestExo(t, p)
	e.Advance(5*time.Millisecond + 300*time.Microsecond)
	q, xf := e.q, e.xf
	e.Skip(105*time.Millisecond + 900*time.Microsecond)
	if e.q != q || e.xf != xf {
		t.Errorf("the plant moved in a skip: joints %v -> %v, finger %v -> %v", q, e.q, xf, e.xf)
	}
	if time.Duration(e.now) != 105*time.Millisecond {
		t.Errorf("clock at %v after the skip, want 105ms (the last period boundary)", time.Duration(e.now))
	}
	var st devices.ExoState
	_ = e.Read(&st)
	// One sample of sensor delay: the sample of the period before.
	if st.Seq != 104 || st.DeviceTime != 104*time.Millisecond {
		t.Errorf("read sample %d at %v after the skip, want 104 at 104ms", st.Seq, st.DeviceTime)
	}
	e.Skip(105*time.Millisecond + 999*time.Microsecond) // no boundary crossed: nothing
	e.Skip(50 * time.Millisecond)                       // behind the clock: nothing
	if time.Duration(e.now) != 105*time.Millisecond {
		t.Errorf("a skip within the period or backwards moved the clock to %v", time.Duration(e.now))
	}
	// The integration goes on from there on its grid.
	e.Advance(110 * time.Millisecond)
	_ = e.Read(&st)
	if st.Seq != 109 || st.DeviceTime != 109*time.Millisecond {
		t.Errorf("read sample %d at %v after advancing on, want 109 at 109ms", st.Seq, st.DeviceTime)
	}
}
