package device

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/haptex/haptex/calib"
)

// StandardGravity is g₀ [m/s²], the acceleration that turns a calibration
// mass into a load. Use the local g instead for better than 0.3% accuracy.
const StandardGravity = 9.80665

// ForceSample is one calibration pose: a known load and the sensor's raw
// reading under it (averaged over many samples).
type ForceSample struct {
	LoadN [3]float64 `json:"load_n"` // applied force, sensor frame [N]
	Raw   [3]float64 `json:"raw"`    // raw reading [sensor units]
}

// ForceModel names the gain model.
type ForceModel string

const (
	// PerAxis fits an independent gain and bias per axis (G diagonal).
	PerAxis ForceModel = "per-axis"
	// Matrix fits the full 3×3 gain matrix, cross-talk included, and the
	// bias.
	Matrix ForceModel = "matrix"
)

// ForceReport is the quality of a force calibration.
type ForceReport struct {
	Samples int `json:"samples"`
	// ResidualRMSN and ResidualMaxN are the residuals per axis, in newtons.
	ResidualRMSN [3]float64 `json:"residual_rms_n"`
	ResidualMaxN [3]float64 `json:"residual_max_n"`
	// Residuals are the per-sample residuals in newtons.
	Residuals [][3]float64 `json:"residuals_n"`
	// GainSE and BiasSE are the standard errors of Gain and Bias (zero
	// when the fit has no spare samples).
	GainSE [3][3]float64 `json:"gain_se"`
	BiasSE [3]float64    `json:"bias_se"`
	// Cond is the condition number of the load design (see
	// calib.LinearLeastSquares); large values mean some axis was barely
	// loaded.
	Cond float64 `json:"cond"`
}

const (
	forceFormat  = "haptex-force-calibration"
	forceVersion = 1
)

// ForceCalibration maps raw sensor readings to force. It is also the
// calibration file's content.
type ForceCalibration struct {
	Format  string     `json:"format"`
	Version int        `json:"version"`
	Device  string     `json:"device"` // model and serial, as in devices.ExoSpec
	Finger  string     `json:"finger"` // "thumb" or "index"
	Created time.Time  `json:"created"`
	Model   ForceModel `json:"model"`
	// Gain is G [sensor units per N], row i the reading of axis i.
	Gain [3][3]float64 `json:"gain"`
	// Bias is b [sensor units], the reading at zero load.
	Bias   [3]float64  `json:"bias"`
	Report ForceReport `json:"report"`
	// inverse is G⁻¹, computed on load.
	inverse [3][3]float64
}

// FitForce fits the sensor model to the samples. Matrix needs at least 5
// samples whose loads span all three axes; PerAxis needs at least 3 with
// two distinct loads on every axis.
func FitForce(samples []ForceSample, model ForceModel) (*ForceCalibration, error) {
	for i, s := range samples {
		for k := range 3 {
			if !finite(s.LoadN[k]) || !finite(s.Raw[k]) {
				return nil, fmt.Errorf("device: force sample %d: load %v, raw %v not finite", i, s.LoadN, s.Raw)
			}
		}
	}
	c := &ForceCalibration{Format: forceFormat, Version: forceVersion, Model: model}
	c.Report.Samples = len(samples)
	m := len(samples)
	switch model {
	case Matrix:
		if m < 5 {
			return nil, fmt.Errorf("device: matrix force calibration needs at least 5 samples, have %d", m)
		}
		a := mat.NewDense(m, 4, nil)
		y := mat.NewDense(m, 3, nil)
		for i, s := range samples {
			for k := range 3 {
				a.Set(i, k, s.LoadN[k])
				y.Set(i, k, s.Raw[k])
			}
			a.Set(i, 3, 1)
		}
		ls, err := calib.LinearLeastSquares(a, y)
		if err != nil {
			return nil, fmt.Errorf("device: force calibration: %w", err)
		}
		// raw_k = Σ_j G[k][j]·f_j + b_k: column k of Coef holds row k of G.
		for k := range 3 {
			for j := range 3 {
				c.Gain[k][j] = ls.Coef.At(j, k)
				c.Report.GainSE[k][j] = ls.StdErr.At(j, k)
			}
			c.Bias[k] = ls.Coef.At(3, k)
			c.Report.BiasSE[k] = ls.StdErr.At(3, k)
		}
		c.Report.Cond = ls.Cond
	case PerAxis:
		if m < 3 {
			return nil, fmt.Errorf("device: per-axis force calibration needs at least 3 samples, have %d", m)
		}
		for k := range 3 {
			a := mat.NewDense(m, 2, nil)
			y := mat.NewDense(m, 1, nil)
			for i, s := range samples {
				a.Set(i, 0, s.LoadN[k])
				a.Set(i, 1, 1)
				y.Set(i, 0, s.Raw[k])
			}
			ls, err := calib.LinearLeastSquares(a, y)
			if err != nil {
				return nil, fmt.Errorf("device: force calibration, axis %d: %w", k, err)
			}
			c.Gain[k][k] = ls.Coef.At(0, 0)
			c.Bias[k] = ls.Coef.At(1, 0)
			c.Report.GainSE[k][k] = ls.StdErr.At(0, 0)
			c.Report.BiasSE[k] = ls.StdErr.At(1, 0)
			c.Report.Cond = math.Max(c.Report.Cond, ls.Cond)
		}
	default:
		return nil, fmt.Errorf("device: force model %q (want %q or %q)", model, Matrix, PerAxis)
	}
	if err := c.invert(); err != nil {
		return nil, err
	}
	c.Report.Residuals = make([][3]float64, m)
	for i, s := range samples {
		f := c.Force(s.Raw)
		for k := range 3 {
			r := s.LoadN[k] - f[k]
			c.Report.Residuals[i][k] = r
			c.Report.ResidualRMSN[k] += r * r / float64(m)
			c.Report.ResidualMaxN[k] = math.Max(c.Report.ResidualMaxN[k], math.Abs(r))
		}
	}
	for k := range 3 {
		c.Report.ResidualRMSN[k] = math.Sqrt(c.Report.ResidualRMSN[k])
	}
	return c, nil
}

// invert computes G⁻¹, failing when G is singular or badly conditioned.
func (c *ForceCalibration) invert() error {
	g := mat.NewDense(3, 3, nil)
	for i := range 3 {
		for j := range 3 {
			g.Set(i, j, c.Gain[i][j])
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(g); err != nil {
		return fmt.Errorf("device: force gain matrix %v not invertible: %w", c.Gain, err)
	}
	if cond := mat.Cond(g, 2); !(cond < 1e6) {
		return fmt.Errorf("device: force gain matrix %v has condition number %.3g", c.Gain, cond)
	}
	for i := range 3 {
		for j := range 3 {
			c.inverse[i][j] = inv.At(i, j)
		}
	}
	return nil
}

// Force returns the calibrated force [N] for a raw reading. It allocates
// nothing, so the 1 kHz loop may call it.
func (c *ForceCalibration) Force(raw [3]float64) [3]float64 {
	var d, f [3]float64
	for k := range 3 {
		d[k] = raw[k] - c.Bias[k]
	}
	for i := range 3 {
		f[i] = c.inverse[i][0]*d[0] + c.inverse[i][1]*d[1] + c.inverse[i][2]*d[2]
	}
	return f
}

// Validate checks format, version, model, finger and that the gain is
// finite and invertible (and diagonal for a per-axis model).
func (c *ForceCalibration) Validate() error {
	if c.Format != forceFormat {
		return fmt.Errorf("device: force calibration format %q, want %q", c.Format, forceFormat)
	}
	if c.Version != forceVersion {
		return fmt.Errorf("device: force calibration version %d, this build reads %d", c.Version, forceVersion)
	}
	if c.Finger != "thumb" && c.Finger != "index" {
		return fmt.Errorf("device: force calibration finger %q (want thumb or index)", c.Finger)
	}
	if c.Model != Matrix && c.Model != PerAxis {
		return fmt.Errorf("device: force model %q (want %q or %q)", c.Model, Matrix, PerAxis)
	}
	for i := range 3 {
		if !finite(c.Bias[i]) {
			return fmt.Errorf("device: force bias %v not finite", c.Bias)
		}
		for j := range 3 {
			if !finite(c.Gain[i][j]) || (c.Model == PerAxis && i != j && c.Gain[i][j] != 0) {
				return fmt.Errorf("device: force gain %v invalid for a %s model", c.Gain, c.Model)
			}
		}
	}
	return c.invert()
}

// Write validates c and writes it as indented JSON.
func (c *ForceCalibration) Write(w io.Writer) error {
	if err := c.Validate(); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("device: write force calibration: %w", err)
	}
	return nil
}

// ReadForceCalibration reads and validates a force calibration file.
// Unknown fields are errors.
func ReadForceCalibration(r io.Reader) (*ForceCalibration, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var c ForceCalibration
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("device: read force calibration: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// PlannedLoad is one step of a calibration routine.
type PlannedLoad struct {
	Instruction string     `json:"instruction"`
	LoadN       [3]float64 `json:"load_n"`
}

// LoadPlan returns the loads of a force calibration: no load, then each
// mass (kg, hung under standard gravity) along +x, −x, +y, −y, +z and −z
// of the sensor frame, then no load again to expose drift. With two
// masses that is 14 poses, enough for the matrix model with spare samples
// for the residual report.
func LoadPlan(massesKg []float64) ([]PlannedLoad, error) {
	if len(massesKg) == 0 {
		return nil, fmt.Errorf("device: load plan needs at least one mass")
	}
	plan := []PlannedLoad{{Instruction: "remove all loads"}}
	axes := [3]string{"x", "y", "z"}
	for _, kg := range massesKg {
		if !(kg > 0) || !finite(kg) {
			return nil, fmt.Errorf("device: calibration mass %g kg invalid", kg)
		}
		for k := range 3 {
			for _, sign := range []float64{1, -1} {
				var l [3]float64
				l[k] = sign * kg * StandardGravity
				dir := "+"
				if sign < 0 {
					dir = "−"
				}
				plan = append(plan, PlannedLoad{
					Instruction: fmt.Sprintf("hang %.3f kg so that it pulls along %s%s (%.3f N)", kg, dir, axes[k], kg*StandardGravity),
					LoadN:       l,
				})
			}
		}
	}
	plan = append(plan, PlannedLoad{Instruction: "remove all loads"})
	return plan, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
