package device

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/calib"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/internal/vec3"
)

const deg = math.Pi / 180

// trueParams is an assembled device that differs from the nominal
// description by encoder zeros of a few degrees, link errors of about
// half a millimetre and axis misalignments of a few tenths of a degree.
func trueParams() exo.Params {
	p := exo.DefaultParams()
	p.Links[0].Offset += 2.5 * deg
	p.Links[1].Offset -= 1.8 * deg
	p.Links[2].Offset += 3.1 * deg
	p.Links[0].A += 0.4e-3
	p.Links[1].A += 0.5e-3
	p.Links[2].A -= 0.45e-3
	p.Links[0].D -= 0.3e-3
	p.Links[1].D += 0.35e-3
	p.Links[0].Alpha += 0.3 * deg
	p.Links[1].Alpha -= 0.25 * deg
	return p
}

func TestKinParamNames(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range AllKinParams() {
		s := k.String()
		if seen[s] {
			t.Errorf("name %q twice", s)
		}
		seen[s] = true
		b, err := k.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back KinParam
		if err := back.UnmarshalText(b); err != nil || back != k {
			t.Errorf("%s: round trip gave %v, %v", s, back, err)
		}
	}
	for _, tc := range []struct {
		k    KinParam
		name string
	}{{Offset1, "link1.offset_rad"}, {A3, "link3.a_m"}, {D2, "link2.d_m"}, {Alpha1, "link1.alpha_rad"}, {ToolZ, "tool.z_m"}} {
		if tc.k.String() != tc.name {
			t.Errorf("%d is %q, want %q", int(tc.k), tc.k.String(), tc.name)
		}
	}
	if _, err := ParseKinParam("link4.a_m"); err == nil {
		t.Error("link4.a_m parsed")
	}
	if _, err := KinParam(-1).MarshalText(); err == nil {
		t.Error("KinParam(-1) marshalled")
	}
}

// TestChainMatchesExo checks the calibration's own chain against
// exo.Model (the kinematics the rig runs) and its analytic parameter
// Jacobian against central differences of exo.Model.Forward.
func TestChainMatchesExo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		p := trueParams()
		for _, k := range AllKinParams() {
			*k.field(&p) += 0.01 * (rng.Float64() - 0.5)
		}
		m, err := exo.New(p)
		if err != nil {
			t.Fatal(err)
		}
		p = m.Params() // pad normal normalised, as the rig sees it
		q := [3]float64{rng.Float64() - 0.5, rng.Float64() - 1, rng.Float64() + 0.2}
		var c chain
		c.eval(&p, q)
		if d := vec3.Norm(vec3.Sub(c.pad, m.Forward(q))); d > 1e-15 {
			t.Fatalf("trial %d: chain pad off exo.Forward by %g m", trial, d)
		}
		for _, k := range AllKinParams() {
			const h = 1e-6
			pp, pm := p, p
			*k.field(&pp) += h
			*k.field(&pm) -= h
			mp, _ := exo.New(pp)
			mm, _ := exo.New(pm)
			fd := vec3.Scale(1/(2*h), vec3.Sub(mp.Forward(q), mm.Forward(q)))
			if d := vec3.Norm(vec3.Sub(fd, c.partial(k))); d > 1e-8 {
				t.Errorf("trial %d, %s: analytic %v, central difference %v", trial, k, c.partial(k), fd)
			}
		}
	}
}

func TestIdentify(t *testing.T) {
	nom := exo.DefaultParams()
	plan, err := PlanPoses(nom, DefaultKinParams(), 15)
	if err != nil {
		t.Fatal(err)
	}
	id, err := Identify(nom, AllKinParams(), plan.Joints)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("all 15 parameters over the default plan: identifiable %v (cond %.3g), not %v", id.Identifiable, id.Cond, id.NotIdentifiable)
	if !slices.Equal(id.Identifiable, DefaultKinParams()) {
		t.Errorf("identifiable %v, want DefaultKinParams %v", id.Identifiable, DefaultKinParams())
	}
	// The dependencies are geometric facts of the chain: D3 and D2 shift
	// along parallel axes; Tool x lies along link 3 as A3 does; Tool y
	// turns with the third joint as Offset3 does; Alpha3 tilts Tool y
	// along the joint axes, as D2 shifts.
	want := map[KinParam]KinParam{D3: D2, Alpha3: D2, ToolX: A3, ToolY: Offset3, ToolZ: D2}
	if len(id.NotIdentifiable) != len(want) {
		t.Errorf("not identifiable %v, want %d", id.NotIdentifiable, len(want))
	}
	for _, d := range id.NotIdentifiable {
		if w, ok := want[d.Param]; !ok || len(d.With) == 0 || d.With[0] != w {
			t.Errorf("%v: want it to trade off first against %v", d, w)
		}
	}
	// Five dependencies, five singular values at rounding level.
	if s := id.Singular; len(s) != 15 || s[9]/s[0] < 1e-3 || s[10]/s[0] > 1e-12 {
		t.Errorf("singular values %.3g: want 10 clear of zero and 5 at zero", s)
	}

	// Poses that only turn the abduction joint cannot separate the
	// flexion links.
	var fan [][3]float64
	for i := range 8 {
		fan = append(fan, [3]float64{-0.6 + 0.15*float64(i), -0.8, 1.3})
	}
	id, err = Identify(nom, DefaultKinParams(), fan)
	if err != nil {
		t.Fatal(err)
	}
	if len(id.NotIdentifiable) == 0 {
		t.Errorf("abduction-only poses identify everything: %+v", id)
	}
	t.Logf("abduction-only poses: not identifiable %v", id.NotIdentifiable)
	if _, err := Identify(nom, []KinParam{A1, A1}, fan); err == nil {
		t.Error("repeated parameter accepted")
	}
	if _, err := Identify(nom, nil, fan); err == nil {
		t.Error("no parameters accepted")
	}
}

// posesAt returns what a perfect jig would record: for each joint
// reading q, the pad centre of the true kinematics at q, with encoder
// noise of sigma added to the readings the fit sees.
func posesAt(truth exo.Params, joints [][3]float64, sigma float64, rng *rand.Rand) []KinPose {
	m, _ := exo.New(truth)
	var ps []KinPose
	for _, q := range joints {
		pose := KinPose{Point: m.Forward(q), Joints: q}
		for k := range 3 {
			if sigma > 0 {
				pose.Joints[k] += sigma * rng.NormFloat64()
			}
		}
		ps = append(ps, pose)
	}
	return ps
}

func TestFitKinematicsExact(t *testing.T) {
	nom, truth := exo.DefaultParams(), trueParams()
	plan, err := PlanPoses(nom, DefaultKinParams(), 15)
	if err != nil {
		t.Fatal(err)
	}
	c, err := FitKinematics(nom, DefaultKinParams(), posesAt(truth, plan.Joints, 0, nil), KinNoise{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range c.Params {
		if d := math.Abs(v.Value - *v.Param.field(&truth)); d > 1e-12 {
			t.Errorf("%s: %.15g, true %.15g", v.Param, v.Value, *v.Param.field(&truth))
		}
	}
	t.Logf("noise-free: %d iterations, residual RMS %.3g µm (nominal %.0f µm)", c.Report.Iterations, c.Report.ResidualRMSUm, c.Report.NominalRMSUm)
	if c.Report.ResidualMaxUm > 1e-6 || c.Report.NominalRMSUm < 1000 {
		t.Errorf("residual max %g µm, nominal RMS %g µm", c.Report.ResidualMaxUm, c.Report.NominalRMSUm)
	}
}

// TestFitKinematicsStdErr: over repeated calibrations with noise, the
// reported standard errors match the actual scatter of the estimates,
// each estimate is within 5 of its standard errors, and the noise scale
// is 1 when the stated noise is the actual one. Encoder noise reaches the
// pad through the joint Jacobian, so it is anisotropic and differs from
// pose to pose: without weighting, the standard errors would be off by up
// to 50%.
func TestFitKinematicsStdErr(t *testing.T) {
	nom, truth := exo.DefaultParams(), trueParams()
	params := DefaultKinParams()
	plan, err := PlanPoses(nom, params, 15)
	if err != nil {
		t.Fatal(err)
	}
	mt, _ := exo.New(truth)
	for _, tc := range []struct {
		name  string
		noise KinNoise
	}{
		{"encoder noise", KinNoise{EncoderRad: 2e-4}},
		{"jig noise", KinNoise{JigM: 20e-6}},
		{"both", KinNoise{JigM: 10e-6, EncoderRad: 1e-4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const runs = 150
			rng := rand.New(rand.NewPCG(7, 8))
			sum2 := make([]float64, len(params))
			se := make([]float64, len(params))
			var scale float64
			for range runs {
				poses := posesAt(truth, plan.Joints, tc.noise.EncoderRad, rng)
				for i := range poses {
					poses[i].Point = mt.Forward(plan.Joints[i])
					for k := range 3 {
						poses[i].Point[k] += tc.noise.JigM * rng.NormFloat64()
					}
				}
				c, err := FitKinematics(nom, params, poses, tc.noise)
				if err != nil {
					t.Fatal(err)
				}
				scale += c.Report.NoiseScale / runs
				for j, v := range c.Params {
					e := v.Value - *v.Param.field(&truth)
					sum2[j] += e * e / runs
					se[j] += v.StdErr / runs
					if math.Abs(e) > 5*v.StdErr {
						t.Errorf("%s off by %.3g, standard error %.3g", v.Param, e, v.StdErr)
					}
				}
			}
			t.Logf("mean noise scale %.3f", scale)
			if math.Abs(scale-1) > 0.1 {
				t.Errorf("noise scale %.3f with the true noise stated", scale)
			}
			for j, k := range params {
				rms := math.Sqrt(sum2[j])
				t.Logf("%-16s RMS error %.3g, mean standard error %.3g (ratio %.2f)", k, rms, se[j], rms/se[j])
				// 150 runs give the scatter's RMS to about ±6%.
				if r := rms / se[j]; r < 0.8 || r > 1.2 {
					t.Errorf("%s: RMS error %.3g but standard error %.3g", k, rms, se[j])
				}
			}
		})
	}
}

// TestFitKinematicsModelErrors: errors in parameters that trade off
// against calibrated ones are absorbed (the pad is still right), while
// errors in parameters left out show in the residuals.
func TestFitKinematicsModelErrors(t *testing.T) {
	nom := exo.DefaultParams()
	plan, err := PlanPoses(nom, DefaultKinParams(), 15)
	if err != nil {
		t.Fatal(err)
	}
	absorbed := trueParams()
	absorbed.Tool[0] += 0.4e-3
	absorbed.Tool[1] -= 0.3e-3
	absorbed.Links[2].D += 0.2e-3
	c, err := FitKinematics(nom, DefaultKinParams(), posesAt(absorbed, plan.Joints, 0, nil), KinNoise{})
	if err != nil {
		t.Fatal(err)
	}
	// Exactly absorbed only while joints 2 and 3 are parallel: the twist
	// errors of trueParams leave nanometres.
	if c.Report.ResidualMaxUm > 0.01 {
		t.Errorf("tool and D3 errors not absorbed: residual max %.3g µm", c.Report.ResidualMaxUm)
	}
	// Validate away from the jig points: the calibrated model puts the pad
	// where the true one is.
	cal, err := c.Apply(nom)
	if err != nil {
		t.Fatal(err)
	}
	mc, _ := exo.New(cal)
	mt, _ := exo.New(absorbed)
	for _, q := range [][3]float64{{0.3, -0.5, 1}, {-0.4, 0.2, 0.5}, {0.1, -1.2, 1.6}} {
		if d := vec3.Norm(vec3.Sub(mc.Forward(q), mt.Forward(q))); d > 1e-8 {
			t.Errorf("q %v: calibrated pad %.3g µm from the true one", q, 1e6*d)
		}
	}

	offsetsOnly, err := FitKinematics(nom, []KinParam{Offset1, Offset2, Offset3}, posesAt(trueParams(), plan.Joints, 0, nil), KinNoise{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("offsets only on a device with link errors: residual RMS %.0f µm, max %.0f µm", offsetsOnly.Report.ResidualRMSUm, offsetsOnly.Report.ResidualMaxUm)
	if offsetsOnly.Report.ResidualRMSUm < 100 {
		t.Errorf("link errors hidden: residual RMS %.3g µm", offsetsOnly.Report.ResidualRMSUm)
	}
}

func TestFitKinematicsErrors(t *testing.T) {
	nom := exo.DefaultParams()
	plan, err := PlanPoses(nom, DefaultKinParams(), 15)
	if err != nil {
		t.Fatal(err)
	}
	good := posesAt(trueParams(), plan.Joints, 0, nil)
	if _, err := FitKinematics(nom, AllKinParams(), good, KinNoise{}); !errors.Is(err, calib.ErrIllPosed) || !strings.Contains(err.Error(), "tool.x_m") {
		t.Errorf("all parameters: %v", err)
	}
	if _, err := FitKinematics(nom, DefaultKinParams(), good[:3], KinNoise{}); err == nil {
		t.Error("3 poses for 10 parameters accepted")
	}
	bad := slices.Clone(good)
	bad[4].Joints[1] = math.NaN()
	if _, err := FitKinematics(nom, DefaultKinParams(), bad, KinNoise{}); err == nil {
		t.Error("NaN joint accepted")
	}
	badNom := nom
	badNom.Home[0] = 5
	if _, err := FitKinematics(badNom, DefaultKinParams(), good, KinNoise{}); err == nil {
		t.Error("invalid nominal accepted")
	}
	if _, err := FitKinematics(nom, DefaultKinParams(), good, KinNoise{JigM: -1}); err == nil {
		t.Error("negative noise accepted")
	}
	// An encoder that slipped by 30°: the fit finds it, and refuses it.
	slipped := trueParams()
	slipped.Links[1].Offset += 30 * deg
	_, err = FitKinematics(nom, DefaultKinParams(), posesAt(slipped, plan.Joints, 0, nil), KinNoise{})
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "link2.offset_rad") {
		t.Errorf("30° offset error: %v", err)
	}
}

func TestPlanPoses(t *testing.T) {
	nom := exo.DefaultParams()
	m, _ := exo.New(nom)
	for _, n := range []int{5, 15, 30} {
		plan, err := PlanPoses(nom, DefaultKinParams(), n)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d points: condition number %.3g", n, plan.Cond)
		if len(plan.Points) != n || len(plan.Joints) != n || !(plan.Cond <= MaxKinCond) {
			t.Errorf("%d points: got %d, %d joints, cond %g", n, len(plan.Points), len(plan.Joints), plan.Cond)
		}
		for i, q := range plan.Joints {
			for k := range 3 {
				if q[k] < nom.JointMin[k]+PlanMarginRad-1e-12 || q[k] > nom.JointMax[k]-PlanMarginRad+1e-12 {
					t.Errorf("point %d joint %d at %g rad, inside the margin", i, k+1, q[k])
				}
			}
			if d := vec3.Norm(vec3.Sub(m.Forward(q), plan.Points[i])); d > 1e-15 {
				t.Errorf("point %d is %g m from its posture's pad", i, d)
			}
		}
	}
	if _, err := PlanPoses(nom, DefaultKinParams(), 3); err == nil {
		t.Error("3 points for 10 parameters accepted")
	}
	if _, err := PlanPoses(nom, AllKinParams(), 20); !errors.Is(err, calib.ErrIllPosed) {
		t.Errorf("plan for every parameter: %v", err)
	}
}

func testKinCalibration(t *testing.T) *KinematicCalibration {
	t.Helper()
	nom := exo.DefaultParams()
	plan, err := PlanPoses(nom, DefaultKinParams(), 12)
	if err != nil {
		t.Fatal(err)
	}
	c, err := FitKinematics(nom, DefaultKinParams(), posesAt(trueParams(), plan.Joints, 1e-5, rand.New(rand.NewPCG(1, 1))), KinNoise{EncoderRad: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	c.Device, c.Finger, c.Created = "haptex-sim-exo SIM-0000", "thumb", time.Date(2026, 5, 27, 9, 0, 0, 0, time.UTC)
	return c
}

func TestKinematicCalibrationFile(t *testing.T) {
	c := testKinCalibration(t)
	var buf bytes.Buffer
	if err := c.Write(&buf); err != nil {
		t.Fatal(err)
	}
	d, err := ReadKinematicCalibration(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Params, d.Params) || d.Report.ResidualRMSUm != c.Report.ResidualRMSUm || len(d.Poses) != len(c.Poses) {
		t.Errorf("reloaded calibration differs:\n%+v\n%+v", c.Params, d.Params)
	}
	nom := exo.DefaultParams()
	p, err := d.Apply(nom)
	if err != nil {
		t.Fatal(err)
	}
	if p2, err := d.Apply(p); err != nil || p2 != p {
		t.Errorf("applying twice: %v", err)
	}
	other := nom
	other.Links[1].A = 0.12
	if _, err := d.Apply(other); err == nil || !strings.Contains(err.Error(), "link2.a_m") {
		t.Errorf("calibration applied to another description: %v", err)
	}

	good := buf.String()
	for _, e := range []struct{ old, new string }{
		{`"version": 1`, `"version": 2`},
		{`"format": "haptex-kinematic-calibration"`, `"format": "haptex-force-calibration"`},
		{`"finger": "thumb"`, `"finger": "toe"`},
		{`"param": "link2.a_m"`, `"param": "link2.length"`},
		{`"param": "link2.a_m"`, `"param": "link1.a_m"`},
		{`"device"`, `"extra": 1, "device"`},
		{`"params": [`, `"params": 7, "x": [`},
	} {
		bad := strings.Replace(good, e.old, e.new, 1)
		if bad == good {
			t.Fatalf("%q not found", e.old)
		}
		if _, err := ReadKinematicCalibration(strings.NewReader(bad)); err == nil {
			t.Errorf("file with %s accepted", e.new)
		}
	}
	far := *c
	far.Params = slices.Clone(c.Params)
	far.Params[0].Value += 0.5
	if err := far.Validate(); err == nil || !strings.Contains(err.Error(), "link1.offset_rad") {
		t.Errorf("offset moved by 0.5 rad validated: %v", err)
	}
	far.Params[0].Value = math.NaN()
	if err := far.Validate(); err == nil {
		t.Error("NaN validated")
	}
	if err := far.Write(&bytes.Buffer{}); err == nil {
		t.Error("invalid calibration written")
	}
}

func ExampleIdentify() {
	nom := exo.DefaultParams()
	plan, err := PlanPoses(nom, DefaultKinParams(), 15)
	if err != nil {
		fmt.Println(err)
		return
	}
	id, err := Identify(nom, AllKinParams(), plan.Joints)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range id.NotIdentifiable {
		fmt.Println(d.Param, "trades off against", d.With[0])
	}
	// Output:
	// link3.d_m trades off against link2.d_m
	// link3.alpha_rad trades off against link2.d_m
	// tool.x_m trades off against link3.a_m
	// tool.y_m trades off against link3.offset_rad
	// tool.z_m trades off against link2.d_m
}
