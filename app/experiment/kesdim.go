package experiment

import (
	"fmt"
	"math"

	"github.com/haptex/haptex/calib/kes"
)

// KESQuantity is the Kawabata (KES-F) quantity a stimulus dimension's
// level scales: the test fabric is the reference fabric with this
// quantity multiplied by 1 + X/100 (or, Inverse, the quantity as it
// follows from a property multiplied so). A threshold in X is then a
// Weber fraction of the quantity, and the record gives it in the
// quantity's own unit too.
type KESQuantity struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	Doc  string `json:"doc"`
	// Inverse: the level stiffens the fabric, and the quantity falls as
	// it does (EMT, the strain at the test's maximum load).
	Inverse bool `json:"inverse,omitempty"`

	// at is the quantity of fabric f, the mean of warp and weft, with the
	// property it measures multiplied by k.
	at func(f *kes.Fabric, k float64) (float64, error)
}

var (
	kesSMD = &KESQuantity{Name: "SMD", Unit: "µm", Doc: "geometrical roughness, mean of warp and weft (KES-FB4)",
		at: func(f *kes.Fabric, k float64) (float64, error) { return k * f.Roughness(kes.Bias).SMD * 1e6, nil }}
	kesMIU = &KESQuantity{Name: "MIU", Unit: "1", Doc: "mean coefficient of friction, mean of warp and weft (KES-FB4); the level scales the fingertip's Coulomb coefficients in the same proportion",
		at: func(f *kes.Fabric, k float64) (float64, error) { return k * f.Friction(kes.Bias).Mu, nil }}
	kesB = &KESQuantity{Name: "B", Unit: "gf·cm²/cm", Doc: "bending rigidity, mean of warp and weft (KES-FB2); the level scales the bending hysteresis 2HB in the same proportion",
		at: func(f *kes.Fabric, k float64) (float64, error) {
			return k * f.BendingRigidity(kes.Bias) / 9.80665e-5, nil
		}}
	kesEMT = &KESQuantity{Name: "EMT", Unit: "%", Inverse: true,
		Doc: "tensile strain at the maximum load F_m, mean of warp and weft (KES-FB1): a fabric whose tensile curves carry 1 + X/100 times the stress reaches F_m at a smaller strain",
		at:  strainAtMaxLoad}
)

// strainAtMaxLoad is kesEMT's quantity: the strain [%] at which the
// fabric's tensile curves, k times as stiff, carry F_m, the mean of warp
// and weft.
func strainAtMaxLoad(f *kes.Fabric, k float64) (float64, error) {
	var sum float64
	for _, d := range []kes.Direction{kes.Warp, kes.Weft} {
		c, err := f.TensileCurve(d)
		if err != nil {
			return math.NaN(), err
		}
		// The curve rises monotonically from 0 to F_m at ε_m: bisect
		// k·F(ε) = F_m within it (k >= 1), or beyond it along its
		// continuation (k < 1: the curve is extended at its end slope).
		want := c.ForceMax / k
		lo, hi := 0.0, c.StrainMax
		for c.Force(hi) < want {
			if hi > 100 {
				return math.NaN(), fmt.Errorf("experiment: %s: no strain carries %g N/m", f.Name, want)
			}
			hi *= 2
		}
		for range 100 {
			m := (lo + hi) / 2
			if c.Force(m) < want {
				lo = m
			} else {
				hi = m
			}
		}
		sum += 100 * (lo + hi) / 2
	}
	return sum / 2, nil
}

// KESLevel is a level expressed in the dimension's KES quantity: the
// reference fabric's value and the test fabric's at the level X.
type KESLevel struct {
	Quantity  string  `json:"quantity"`
	Unit      string  `json:"unit"`
	X         float64 `json:"x"`
	Reference float64 `json:"reference"`
	Test      float64 `json:"test"`
	// Weber is |Test − Reference| / Reference.
	Weber float64 `json:"weber"`
}

// KESLevelOf expresses level x of experiment e, whose fabric is f, in
// its dimension's KES quantity; ok is false for a dimension that scales
// no fabric property.
func KESLevelOf(e *Experiment, f *kes.Fabric, x float64) (l KESLevel, ok bool, err error) {
	q := dimensions[e.Stimulus.Kind].kes
	if q == nil {
		return KESLevel{}, false, nil
	}
	ref, err := q.at(f, 1)
	if err != nil {
		return KESLevel{}, false, err
	}
	test, err := q.at(f, percentGain(x))
	if err != nil {
		return KESLevel{}, false, err
	}
	return KESLevel{Quantity: q.Name, Unit: q.Unit, X: x, Reference: ref, Test: test, Weber: math.Abs(test-ref) / ref}, true, nil
}
