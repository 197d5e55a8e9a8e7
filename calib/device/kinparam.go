package device

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/internal/vec3"
)

// KinParam names one kinematic parameter of an exo.Params that a
// kinematic calibration can refine. Its text form (used in files and on
// the command line) is the exo.toml key: "link2.a_m", "tool.x_m".
type KinParam int

const (
	Offset1 KinParam = iota // link 1 Offset: joint angle at encoder zero [rad]
	Offset2
	Offset3
	A1 // link 1 A: link length [m]
	A2
	A3
	D1 // link 1 D: link offset along the joint axis [m]
	D2
	D3
	Alpha1 // link 1 Alpha: link twist [rad]
	Alpha2
	Alpha3
	ToolX // Tool: pad centre in frame 3 [m]
	ToolY
	ToolZ
	numKinParams
)

// AllKinParams returns every parameter, in the order above.
func AllKinParams() []KinParam {
	ps := make([]KinParam, numKinParams)
	for i := range ps {
		ps[i] = KinParam(i)
	}
	return ps
}

// DefaultKinParams returns the parameters a calibration refines unless
// told otherwise: every one that a fingertip held at jig points determines
// when the pad centre's place on the distal link (Tool, from the plate's
// drawing) is known. That is the three encoder zero offsets, the link
// lengths A, the link offsets D1 and D2 and the twists Alpha1 and Alpha2
// (axis misalignments). The others trade off against these (see Identify):
// D3 against D2 (joints 2 and 3 are parallel), Alpha3 against D2, and Tool
// against A3, Offset3 and D2.
func DefaultKinParams() []KinParam {
	return []KinParam{Offset1, Offset2, Offset3, A1, A2, A3, D1, D2, Alpha1, Alpha2}
}

// String returns the parameter's exo.toml key.
func (k KinParam) String() string {
	if k < 0 || k >= numKinParams {
		return fmt.Sprintf("KinParam(%d)", int(k))
	}
	if k >= ToolX {
		return "tool." + string("xyz"[k-ToolX]) + "_m"
	}
	kind := [...]string{"offset_rad", "a_m", "d_m", "alpha_rad"}[k/3]
	return fmt.Sprintf("link%d.%s", k%3+1, kind)
}

// ParseKinParam returns the parameter named name (its String form).
func ParseKinParam(name string) (KinParam, error) {
	for k := range numKinParams {
		if k.String() == name {
			return k, nil
		}
	}
	return 0, fmt.Errorf("device: unknown kinematic parameter %q (want link1..3.offset_rad, .a_m, .d_m, .alpha_rad or tool.x_m, tool.y_m, tool.z_m)", name)
}

// MarshalText writes the parameter's name.
func (k KinParam) MarshalText() ([]byte, error) {
	if k < 0 || k >= numKinParams {
		return nil, fmt.Errorf("device: kinematic parameter %d out of range", int(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText reads a parameter's name.
func (k *KinParam) UnmarshalText(b []byte) error {
	v, err := ParseKinParam(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Angle reports whether the parameter is an angle [rad] rather than a
// length [m].
func (k KinParam) Angle() bool { return k <= Offset3 || (k >= Alpha1 && k <= Alpha3) }

// field returns the parameter's place in p.
func (k KinParam) field(p *exo.Params) *float64 {
	switch {
	case k >= ToolX:
		return &p.Tool[k-ToolX]
	case k >= Alpha1:
		return &p.Links[k-Alpha1].Alpha
	case k >= D1:
		return &p.Links[k-D1].D
	case k >= A1:
		return &p.Links[k-A1].A
	default:
		return &p.Links[k-Offset1].Offset
	}
}

// checkKinParams rejects out-of-range and repeated parameters.
func checkKinParams(params []KinParam) error {
	if len(params) == 0 {
		return fmt.Errorf("device: no kinematic parameters to calibrate")
	}
	var seen [numKinParams]bool
	for _, k := range params {
		if k < 0 || k >= numKinParams {
			return fmt.Errorf("device: kinematic parameter %d out of range", int(k))
		}
		if seen[k] {
			return fmt.Errorf("device: kinematic parameter %s listed twice", k)
		}
		seen[k] = true
	}
	return nil
}

// chain is the Denavit-Hartenberg chain of exo.Model evaluated at one
// posture, with what the parameter derivatives need: frame origins o_i,
// x and z axes, the distal rotation and the pad centre.
type chain struct {
	o, x, z [4][3]float64
	r       exo.Mat3
	pad     [3]float64
}

// eval follows exo.Model's convention A_i = Rz(q_i+Offset_i) Tz(D_i)
// Tx(A_i) Rx(Alpha_i), frame 0 the device base (TestChainMatchesExo).
func (c *chain) eval(p *exo.Params, q [3]float64) {
	r := exo.Identity()
	c.o[0], c.x[0], c.z[0] = [3]float64{}, [3]float64{1, 0, 0}, [3]float64{0, 0, 1}
	for i, l := range p.Links {
		st, ct := math.Sincos(q[i] + l.Offset)
		sa, ca := math.Sincos(l.Alpha)
		a := exo.Mat3{{ct, -st * ca, st * sa}, {st, ct * ca, -ct * sa}, {0, sa, ca}}
		c.o[i+1] = vec3.Add(c.o[i], r.MulVec([3]float64{l.A * ct, l.A * st, l.D}))
		r = r.Mul(&a)
		c.x[i+1] = [3]float64{r[0][0], r[1][0], r[2][0]}
		c.z[i+1] = [3]float64{r[0][2], r[1][2], r[2][2]}
	}
	c.r = r
	c.pad = vec3.Add(c.o[3], r.MulVec(p.Tool))
}

// partial returns ∂pad/∂k: a joint angle (Offset) or twist (Alpha) turns
// everything beyond it about its axis, a length (D, A) shifts it along
// its axis, and Tool moves the pad along the distal frame's axes.
func (c *chain) partial(k KinParam) [3]float64 {
	switch {
	case k >= ToolX:
		j := k - ToolX
		return [3]float64{c.r[0][j], c.r[1][j], c.r[2][j]}
	case k >= Alpha1:
		i := k - Alpha1 + 1
		return vec3.Cross(c.x[i], vec3.Sub(c.pad, c.o[i]))
	case k >= D1:
		return c.z[k-D1]
	case k >= A1:
		return c.x[k-A1+1]
	default:
		i := k - Offset1
		return vec3.Cross(c.z[i], vec3.Sub(c.pad, c.o[i]))
	}
}

// identification returns the 3N×P identification Jacobian ∂pad/∂params,
// rows x, y, z of each posture in turn, and the pads.
func identification(p *exo.Params, params []KinParam, joints [][3]float64) (*mat.Dense, [][3]float64) {
	jac := mat.NewDense(3*len(joints), len(params), nil)
	pads := make([][3]float64, len(joints))
	var c chain
	for n, q := range joints {
		c.eval(p, q)
		pads[n] = c.pad
		for j, k := range params {
			d := c.partial(k)
			for r := range 3 {
				jac.Set(3*n+r, j, d[r])
			}
		}
	}
	return jac, pads
}
