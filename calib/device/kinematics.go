package device

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/haptex/haptex/calib"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/internal/vec3"
)

// KinPose is one kinematic calibration measurement: the pad centre held
// at a known jig point and the joint encoder readings there.
type KinPose struct {
	Point  [3]float64 `json:"point_m"`    // jig point, device base frame [m]
	Joints [3]float64 `json:"joints_rad"` // encoder readings (averaged) [rad]
}

// KinNoise is the measurement noise a kinematic fit weights each pose by:
// the residual at a pose has covariance JigM²·I + EncoderRad²·J_q·J_qᵀ,
// J_q the pad's Jacobian with respect to the joints there. So a pose where
// encoder noise moves the pad a lot counts less, and the standard errors
// hold for encoder noise as well as for jig error. Only the ratio of the
// two weights the poses; the noise's scale is estimated from the
// residuals (KinematicReport.NoiseScale). The zero value means JigM =
// 1 µm, EncoderRad = 0: ordinary least squares.
type KinNoise struct {
	JigM       float64 `json:"jig_m"`       // jig placement error, standard deviation per axis [m]
	EncoderRad float64 `json:"encoder_rad"` // joint reading error, standard deviation [rad]; quantisation alone is resolution/√12
}

// cov returns the residual covariance at a pose with pad Jacobian jq.
func (n KinNoise) cov(jq *exo.Mat3) exo.Mat3 {
	if n.JigM == 0 && n.EncoderRad == 0 {
		n.JigM = 1e-6
	}
	var c exo.Mat3
	e2 := n.EncoderRad * n.EncoderRad
	for i := range 3 {
		for j := range 3 {
			c[i][j] = e2 * (jq[i][0]*jq[j][0] + jq[i][1]*jq[j][1] + jq[i][2]*jq[j][2])
		}
		c[i][i] += n.JigM * n.JigM
	}
	return c
}

func (n KinNoise) check() error {
	if !(n.JigM >= 0) || !(n.EncoderRad >= 0) || math.IsInf(n.JigM, 0) || math.IsInf(n.EncoderRad, 0) {
		return fmt.Errorf("device: kinematic noise %+v: want finite values >= 0", n)
	}
	return nil
}

// KinParamValue is one calibrated parameter.
type KinParamValue struct {
	Param   KinParam `json:"param"`
	Nominal float64  `json:"nominal"` // value in the description calibrated [m or rad]
	Value   float64  `json:"value"`   // calibrated value
	StdErr  float64  `json:"std_err"` // standard error of Value
}

// KinematicReport is the quality of a kinematic calibration.
type KinematicReport struct {
	Poses int `json:"poses"`
	// ResidualRMSUm and ResidualMaxUm summarise the distances between
	// the jig points and the pad centre the calibrated kinematics puts at
	// the recorded encoder readings [µm]; NominalRMSUm and NominalMaxUm
	// the same for the nominal kinematics, before calibration.
	ResidualRMSUm float64 `json:"residual_rms_um"`
	ResidualMaxUm float64 `json:"residual_max_um"`
	NominalRMSUm  float64 `json:"nominal_rms_um"`
	NominalMaxUm  float64 `json:"nominal_max_um"`
	// Residuals are jig point minus calibrated pad, per pose [µm].
	Residuals [][3]float64 `json:"residuals_um"`
	// Noise is the noise model the poses were weighted by, NoiseScale
	// the residuals' scale relative to it, √(χ²/DoF): near 1 (or below,
	// for a jig better than stated) when it explains the residuals, well
	// above 1 when the kinematic model misses something.
	Noise      KinNoise `json:"noise"`
	NoiseScale float64  `json:"noise_scale"`
	// DoF is 3·Poses minus the parameters fitted; Cond the condition
	// number of the final identification Jacobian (unit-norm columns,
	// poses weighted).
	DoF        int     `json:"dof"`
	Cond       float64 `json:"cond"`
	Iterations int     `json:"iterations"`
	// Identifiability is what these poses determine of every parameter
	// (Tool, D3 and Alpha3 included), calibrated ones first: what else a
	// calibration from the same poses could refine.
	Identifiability *Identifiability `json:"identifiability"`
	// EncoderResRad is the device's encoder resolution (RunKinematics):
	// its quantisation alone leaves residuals of about
	// EncoderResRad/√12 times the arm's reach.
	EncoderResRad float64 `json:"encoder_res_rad,omitempty"`
}

const (
	kinFormat  = "haptex-kinematic-calibration"
	kinVersion = 1
	// A calibrated value further than this from nominal is refused: it
	// is a wrong jig, a swapped cable or an encoder that slipped a turn,
	// not an assembly tolerance.
	maxAngleCorrection  = 0.35  // [rad], 20°
	maxLengthCorrection = 0.015 // [m]
)

// KinematicCalibration is a fingertip exoskeleton's refined kinematic
// parameters, and the calibration file's content. Apply puts them into
// the device description's exo.Params.
type KinematicCalibration struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	Device  string          `json:"device"` // model and serial, as in devices.ExoSpec
	Finger  string          `json:"finger"` // "thumb" or "index"
	Created time.Time       `json:"created"`
	Params  []KinParamValue `json:"params"`
	// Poses are the measurements, kept so that a calibration can be
	// audited and refitted.
	Poses  []KinPose       `json:"poses"`
	Report KinematicReport `json:"report"`
}

// KinFitError is returned when the least-squares iteration does not
// converge.
type KinFitError struct {
	Iter     int
	RMSUm    float64 // residual RMS reached [µm]
	StepNorm float64 // last step, angles scaled by 0.1 m [m]
}

func (e *KinFitError) Error() string {
	return fmt.Sprintf("device: kinematic calibration did not converge: residual RMS %.3g µm, last step %.3g m after %d iterations", e.RMSUm, e.StepNorm, e.Iter)
}

// angleScale turns an angle step into a length for convergence tests:
// 1 µrad at 0.1 m reach is 0.1 µm.
const angleScale = 0.1 // [m/rad]

// FitKinematics refines params of nominal from the poses by nonlinear
// least squares: Levenberg-Marquardt on ½Σ rᵀC⁻¹r, r = jig point − pad(q)
// and C the residual covariance of noise at each pose, with the analytic
// parameter Jacobian, each step solved by calib.LinearLeastSquares.
// It fails, wrapping calib.ErrIllPosed, when the poses do not identify
// every parameter asked for (see Identify; PlanPoses makes poses that do),
// when a parameter would move further from nominal than an assembly
// error can (20° or 15 mm), and without more measurements (3 per pose)
// than parameters.
func FitKinematics(nominal exo.Params, params []KinParam, poses []KinPose, noise KinNoise) (*KinematicCalibration, error) {
	if err := checkKinParams(params); err != nil {
		return nil, err
	}
	if err := noise.check(); err != nil {
		return nil, err
	}
	if _, err := exo.New(nominal); err != nil {
		return nil, fmt.Errorf("device: nominal kinematics: %w", err)
	}
	if 3*len(poses) <= len(params) {
		return nil, fmt.Errorf("device: kinematic calibration of %d parameters needs more than %d measurements, have %d poses", len(params), len(params), len(poses))
	}
	joints := make([][3]float64, len(poses))
	for i, ps := range poses {
		if !finite3(ps.Point) || !finite3(ps.Joints) {
			return nil, fmt.Errorf("device: pose %d: point %v, joints %v not finite", i, ps.Point, ps.Joints)
		}
		joints[i] = ps.Joints
	}
	id, err := Identify(nominal, params, joints)
	if err != nil {
		return nil, err
	}
	if len(id.NotIdentifiable) > 0 {
		return nil, fmt.Errorf("device: kinematic calibration: %v not identifiable from %d poses (condition number over %d): %w",
			id.NotIdentifiable, len(poses), MaxKinCond, calib.ErrIllPosed)
	}

	p := nominal
	// res returns the weighted identification Jacobian and residuals
	// (each pose's rows multiplied by L⁻¹, C = LLᵀ), the weighted cost
	// and the raw residuals [m].
	res := func(p *exo.Params) (*mat.Dense, *mat.VecDense, float64, [][3]float64) {
		jac, pads := identification(p, params, joints)
		r := mat.NewVecDense(3*len(poses), nil)
		raw := make([][3]float64, len(poses))
		var ss float64
		var c chain
		for n, ps := range poses {
			c.eval(p, ps.Joints)
			var jq exo.Mat3
			for i := range 3 {
				d := c.partial(Offset1 + KinParam(i))
				jq[0][i], jq[1][i], jq[2][i] = d[0], d[1], d[2]
			}
			l := cholesky3(noise.cov(&jq))
			raw[n] = vec3.Sub(ps.Point, pads[n])
			w := l.lowerSolve(raw[n])
			for k := range 3 {
				r.SetVec(3*n+k, w[k])
				ss += w[k] * w[k]
			}
			for j := range params {
				col := l.lowerSolve([3]float64{jac.At(3*n, j), jac.At(3*n+1, j), jac.At(3*n+2, j)})
				for k := range 3 {
					jac.Set(3*n+k, j, col[k])
				}
			}
		}
		return jac, r, ss, raw
	}
	jac, r, cost, raw := res(&p)
	nominalRaw := raw
	lambda := 1e-3
	iter := 0
	var stepNorm float64
	for ; ; iter++ {
		if iter == 100 {
			return nil, &KinFitError{Iter: iter, RMSUm: rmsUm(raw), StepNorm: stepNorm}
		}
		step, err := lmStep(jac, r, lambda)
		if err != nil {
			return nil, fmt.Errorf("device: kinematic calibration: %w", err)
		}
		trial := p
		stepNorm = 0
		for j, k := range params {
			*k.field(&trial) += step[j]
			s := step[j]
			if k.Angle() {
				s *= angleScale
			}
			stepNorm = math.Max(stepNorm, math.Abs(s))
		}
		tj, tr, tc, traw := res(&trial)
		if tc <= cost {
			p, jac, r, cost, raw = trial, tj, tr, tc, traw
			lambda = math.Max(lambda/10, 1e-12)
			if stepNorm < 1e-10 {
				break
			}
			continue
		}
		if stepNorm < 1e-10 {
			break // no downhill step left at this precision
		}
		lambda *= 10
	}

	// Standard errors and conditioning at the solution: the weighted
	// Gauss-Newton step there is a linear least-squares problem whose
	// coefficient covariance is that of the parameters.
	ls, err := calib.LinearLeastSquares(jac, r)
	if err != nil {
		return nil, fmt.Errorf("device: kinematic calibration: %w", err)
	}
	all := append([]KinParam(nil), params...)
	for _, k := range AllKinParams() {
		if !containsParam(params, k) {
			all = append(all, k)
		}
	}
	full, err := Identify(p, all, joints)
	if err != nil {
		return nil, err
	}
	c := &KinematicCalibration{
		Format: kinFormat, Version: kinVersion,
		Poses: append([]KinPose(nil), poses...),
		Report: KinematicReport{
			Poses: len(poses), DoF: ls.DoF, Cond: ls.Cond, Iterations: iter,
			Noise: noise, NoiseScale: math.Sqrt(cost / float64(ls.DoF)),
			Identifiability: full,
			Residuals:       make([][3]float64, len(poses)),
		},
	}
	for j, k := range params {
		c.Params = append(c.Params, KinParamValue{Param: k, Nominal: *k.field(&nominal), Value: *k.field(&p), StdErr: ls.StdErr.At(j, 0)})
	}
	rep := &c.Report
	for n := range poses {
		rep.Residuals[n] = vec3.Scale(1e6, raw[n])
		rep.ResidualMaxUm = math.Max(rep.ResidualMaxUm, 1e6*vec3.Norm(raw[n]))
		rep.NominalMaxUm = math.Max(rep.NominalMaxUm, 1e6*vec3.Norm(nominalRaw[n]))
	}
	rep.ResidualRMSUm, rep.NominalRMSUm = rmsUm(raw), rmsUm(nominalRaw)
	if err := c.validateParams(); err != nil {
		return nil, err
	}
	return c, nil
}

// lmStep solves the Levenberg-Marquardt step (JᵀJ + λ·diag(JᵀJ)) δ = Jᵀr
// as the least-squares problem [J; √λ·diag(|J_j|)] δ ≈ [r; 0].
func lmStep(jac *mat.Dense, r *mat.VecDense, lambda float64) ([]float64, error) {
	m, np := jac.Dims()
	a := mat.NewDense(m+np, np, nil)
	a.Slice(0, m, 0, np).(*mat.Dense).Copy(jac)
	for j := range np {
		a.Set(m+j, j, math.Sqrt(lambda)*mat.Norm(jac.ColView(j), 2))
	}
	y := mat.NewDense(m+np, 1, nil)
	for i := range m {
		y.Set(i, 0, r.AtVec(i))
	}
	ls, err := calib.LinearLeastSquares(a, y)
	if err != nil {
		return nil, err
	}
	step := make([]float64, np)
	for j := range step {
		step[j] = ls.Coef.At(j, 0)
	}
	return step, nil
}

// rmsUm returns the RMS length of the residual vectors [µm].
func rmsUm(raw [][3]float64) float64 {
	var ss float64
	for _, v := range raw {
		ss += vec3.Dot(v, v)
	}
	return 1e6 * math.Sqrt(ss/float64(len(raw)))
}

// lower3 is a lower-triangular 3×3 matrix.
type lower3 [3][3]float64

// cholesky3 returns L with LLᵀ = c for a symmetric positive definite c.
func cholesky3(c exo.Mat3) lower3 {
	var l lower3
	for i := range 3 {
		for j := 0; j <= i; j++ {
			s := c[i][j]
			for k := range j {
				s -= l[i][k] * l[j][k]
			}
			if i == j {
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	return l
}

// lowerSolve returns L⁻¹v.
func (l *lower3) lowerSolve(v [3]float64) [3]float64 {
	var x [3]float64
	for i := range 3 {
		s := v[i]
		for k := range i {
			s -= l[i][k] * x[k]
		}
		x[i] = s / l[i][i]
	}
	return x
}

func containsParam(ps []KinParam, k KinParam) bool {
	for _, p := range ps {
		if p == k {
			return true
		}
	}
	return false
}

// Apply returns p with the calibrated parameters. It fails when p is not
// the description the calibration was made from: each calibrated
// parameter of p must hold its Nominal value (or already its calibrated
// Value, so applying twice is harmless).
func (c *KinematicCalibration) Apply(p exo.Params) (exo.Params, error) {
	if err := c.validateParams(); err != nil {
		return p, err
	}
	const tol = 1e-9 // [m or rad]; JSON and TOML keep float64 exactly
	for _, v := range c.Params {
		f := v.Param.field(&p)
		if math.Abs(*f-v.Nominal) > tol && math.Abs(*f-v.Value) > tol {
			return p, fmt.Errorf("device: kinematic calibration of %s (%s) was made for %s = %g, the description has %g",
				c.Device, c.Finger, v.Param, v.Nominal, *f)
		}
		*f = v.Value
	}
	if _, err := exo.New(p); err != nil {
		return p, fmt.Errorf("device: calibrated kinematics: %w", err)
	}
	return p, nil
}

// Validate checks format, version and finger, that every parameter is
// known, listed once, finite and within a plausible distance of its
// nominal value, and that the poses are finite.
func (c *KinematicCalibration) Validate() error {
	if err := checkHeader("kinematic", c.Format, kinFormat, c.Version, kinVersion, c.Finger); err != nil {
		return err
	}
	if err := c.validateParams(); err != nil {
		return err
	}
	for i, p := range c.Poses {
		if !finite3(p.Point) || !finite3(p.Joints) {
			return fmt.Errorf("device: kinematic calibration pose %d: point %v, joints %v not finite", i, p.Point, p.Joints)
		}
	}
	return c.Report.Noise.check()
}

// validateParams checks the calibrated parameters alone.
func (c *KinematicCalibration) validateParams() error {
	ps := make([]KinParam, len(c.Params))
	for i, v := range c.Params {
		ps[i] = v.Param
		if !finite(v.Nominal) || !finite(v.Value) || !(v.StdErr >= 0) || math.IsInf(v.StdErr, 0) {
			return fmt.Errorf("device: kinematic calibration %s: nominal %g, value %g, standard error %g not finite", v.Param, v.Nominal, v.Value, v.StdErr)
		}
		limit, unit := maxLengthCorrection, "m"
		if v.Param.Angle() {
			limit, unit = maxAngleCorrection, "rad"
		}
		if d := v.Value - v.Nominal; math.Abs(d) > limit {
			return fmt.Errorf("device: kinematic calibration moves %s by %.4g %s, more than %g %s: wrong jig, swapped cable or slipped encoder?", v.Param, d, unit, limit, unit)
		}
	}
	return checkKinParams(ps)
}

// Write validates c and writes it as indented JSON.
func (c *KinematicCalibration) Write(w io.Writer) error {
	if err := c.Validate(); err != nil {
		return err
	}
	return writeJSON(w, "kinematic", c)
}

// ReadKinematicCalibration reads and validates a kinematic calibration
// file. Unknown fields are errors.
func ReadKinematicCalibration(r io.Reader) (*KinematicCalibration, error) {
	var c KinematicCalibration
	if err := readJSON(r, "kinematic", &c); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// checkHeader validates the fields every calibration file shares.
func checkHeader(kind, format, wantFormat string, version, wantVersion int, finger string) error {
	if format != wantFormat {
		return fmt.Errorf("device: %s calibration format %q, want %q", kind, format, wantFormat)
	}
	if version != wantVersion {
		return fmt.Errorf("device: %s calibration version %d, this build reads %d", kind, version, wantVersion)
	}
	if finger != "thumb" && finger != "index" {
		return fmt.Errorf("device: %s calibration finger %q (want thumb or index)", kind, finger)
	}
	return nil
}

func writeJSON(w io.Writer, kind string, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("device: write %s calibration: %w", kind, err)
	}
	return nil
}

// readJSON decodes a calibration file into v, refusing unknown fields,
// missing ones and any array whose length is not the fixed one of v's
// field: encoding/json leaves a missing field at zero, fills a short
// array's rest with zeros and drops a long one's, so a file without its
// force bias, with 23 pin corrections, or with a jig point of two
// coordinates, would pass.
func readJSON(r io.Reader, kind string, v any) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("device: read %s calibration: %w", kind, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("device: read %s calibration: %w", kind, err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("device: read %s calibration: %w", kind, err)
	}
	if err := checkFields(doc, reflect.ValueOf(v), ""); err != nil {
		return fmt.Errorf("device: read %s calibration: %w", kind, err)
	}
	return nil
}

// checkFields walks the decoded JSON doc beside the Go value v it was
// decoded into and reports the first field that is missing (every field
// without omitempty or omitzero, which haptex always writes) and the first JSON array
// whose length differs from the Go array's. Keys match fields as
// encoding/json matches them (the tag's name, case-insensitively).
func checkFields(doc any, v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			return checkFields(doc, v.Elem(), path)
		}
	case reflect.Struct:
		m, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			found := false
			for k, jv := range m {
				if strings.EqualFold(k, name) {
					found = true
					if err := checkFields(jv, v.Field(i), strings.TrimPrefix(path+"."+name, ".")); err != nil {
						return err
					}
				}
			}
			if o := strings.Split(opts, ","); !found && !slices.Contains(o, "omitempty") && !slices.Contains(o, "omitzero") {
				return fmt.Errorf("%s is missing", strings.TrimPrefix(path+"."+name, "."))
			}
		}
	case reflect.Array, reflect.Slice:
		a, ok := doc.([]any)
		if !ok {
			return nil
		}
		if v.Kind() == reflect.Array && len(a) != v.Len() {
			return fmt.Errorf("%s has %d values, want %d", path, len(a), v.Len())
		}
		for i := range min(len(a), v.Len()) {
			if err := checkFields(a[i], v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}
