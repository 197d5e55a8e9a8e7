package exo

import (
	"errors"
	"fmt"
	"math"

	"github.com/haptex/haptex/internal/vec3"
)

// Link is one row of the Denavit-Hartenberg table (standard convention):
// the transform from frame i-1 to frame i is Rz(q+Offset) Tz(D) Tx(A) Rx(Alpha).
type Link struct {
	A      float64 `toml:"a_m"`        // link length along x_i [m]
	Alpha  float64 `toml:"alpha_rad"`  // link twist about x_i [rad]
	D      float64 `toml:"d_m"`        // link offset along z_{i-1} [m]
	Offset float64 `toml:"offset_rad"` // joint angle at which the encoder reads zero [rad]
}

// Params is the kinematic description of one fingertip exoskeleton, as read
// from its device description file.
type Params struct {
	Links     [3]Link    `toml:"link"`
	Tool      [3]float64 `toml:"tool_m"`        // pad centre in frame 3 [m]
	PadNormal [3]float64 `toml:"pad_normal"`    // direction the pad presses, frame 3 (unit after New)
	JointMin  [3]float64 `toml:"joint_min_rad"` // joint limits [rad]
	JointMax  [3]float64 `toml:"joint_max_rad"`
	Home      [3]float64 `toml:"home_rad"` // rest posture [rad], inside the limits
}

// DefaultParams returns the default geometry: an abduction joint about the
// base z axis followed by two parallel flexion joints (a planar two-link arm
// turned about the vertical), sized so that a base placed 15 cm behind the
// fingertip covers the showcase scene's workspace (roughly 12 x 10 x 10 cm)
// with the elbow kept away from full extension, which is singular (the
// quasi-anthropomorphic layout of the HAPTEX hand exoskeleton, tutorial §5.2).
// At Home the pad sits 13 cm in front of the base on its x axis and presses
// along base +x; the 8 mm tool offset puts the pad centre one pad radius
// beyond the distal plate, along the pad normal.
func DefaultParams() Params {
	return Params{
		Links: [3]Link{
			{A: 0, Alpha: math.Pi / 2, D: 0, Offset: 0},
			{A: 0.11, Alpha: 0, D: 0, Offset: 0},
			{A: 0.09, Alpha: 0, D: 0, Offset: 0.5},
		},
		Tool:      [3]float64{0.0039650, -0.0069483, 0},
		PadNormal: [3]float64{0.49563, -0.86853, 0},
		JointMin:  [3]float64{-0.9, -1.6, -0.3},
		JointMax:  [3]float64{0.9, 0.8, 1.9},
		Home:      [3]float64{0, -0.7904, 1.3426},
	}
}

// Model is the kinematic model of one exoskeleton. Build it with New.
type Model struct {
	p Params
	// sin and cos of each link's twist α, constant: the kinematics run in
	// the simulated plant's every substep.
	twist [3][2]float64
}

// Kin is the kinematic state at one joint configuration.
type Kin struct {
	Pad    [3]float64 // pad centre, base frame [m]
	R      Mat3       // orientation of frame 3 (distal link, force sensor) in the base frame
	Normal [3]float64 // pad normal, base frame
	J      Mat3       // ∂Pad/∂q [m/rad]
}

// New checks p and returns its model.
func New(p Params) (*Model, error) {
	for i, l := range p.Links {
		for _, v := range []float64{l.A, l.Alpha, l.D, l.Offset} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("exo: link %d has a non-finite parameter %+v", i+1, l)
			}
		}
	}
	for i := range 3 {
		if !(p.JointMin[i] < p.JointMax[i]) {
			return nil, fmt.Errorf("exo: joint %d limits [%g, %g] rad are empty", i+1, p.JointMin[i], p.JointMax[i])
		}
		if p.Home[i] < p.JointMin[i] || p.Home[i] > p.JointMax[i] {
			return nil, fmt.Errorf("exo: joint %d home %g rad outside [%g, %g]", i+1, p.Home[i], p.JointMin[i], p.JointMax[i])
		}
	}
	n := vec3.Norm(p.PadNormal)
	if !(n > 0) || math.IsInf(n, 0) {
		return nil, errors.New("exo: pad normal is zero or not finite")
	}
	p.PadNormal = vec3.Scale(1/n, p.PadNormal)
	m := &Model{p: p}
	for i, l := range p.Links {
		m.twist[i][0], m.twist[i][1] = math.Sincos(l.Alpha)
	}
	return m, nil
}

// Params returns the model's parameters (pad normal normalised).
func (m *Model) Params() Params { return m.p }

// frames returns the origins and z axes of frames 0..3 and the rotation of
// frame 3 for joint angles q.
func (m *Model) frames(q *[3]float64) (o, z [4][3]float64, r Mat3) {
	var rs [3]Mat3
	m.chain(q, &o, &z, &rs)
	return o, z, rs[2]
}

// chain fills the origins and z axes of frames 0..3 and the rotations of
// frames 1..3 for joint angles q. The simulated plant calls it at every
// substep: the rotation is carried in scalars, not as a Mat3 value, which
// the compiler copies through memory (the arithmetic is Mat3.Mul's and
// MulVec's, term for term).
func (m *Model) chain(q *[3]float64, o, z *[4][3]float64, rs *[3]Mat3) {
	r00, r01, r02 := 1.0, 0.0, 0.0
	r10, r11, r12 := 0.0, 1.0, 0.0
	r20, r21, r22 := 0.0, 0.0, 1.0
	o[0] = [3]float64{}
	z[0] = [3]float64{0, 0, 1}
	for i := range 3 {
		l := &m.p.Links[i]
		st, ct := math.Sincos(q[i] + l.Offset)
		sa, ca := m.twist[i][0], m.twist[i][1]
		a00, a01, a02 := ct, -st*ca, st*sa
		a10, a11, a12 := st, ct*ca, -ct*sa
		a20, a21, a22 := 0.0, sa, ca
		d0, d1, d2 := l.A*ct, l.A*st, l.D
		oi := &o[i]
		o[i+1] = [3]float64{
			oi[0] + (r00*d0 + r01*d1 + r02*d2),
			oi[1] + (r10*d0 + r11*d1 + r12*d2),
			oi[2] + (r20*d0 + r21*d1 + r22*d2),
		}
		r00, r01, r02 = r00*a00+r01*a10+r02*a20, r00*a01+r01*a11+r02*a21, r00*a02+r01*a12+r02*a22
		r10, r11, r12 = r10*a00+r11*a10+r12*a20, r10*a01+r11*a11+r12*a21, r10*a02+r11*a12+r12*a22
		r20, r21, r22 = r20*a00+r21*a10+r22*a20, r20*a01+r21*a11+r22*a21, r20*a02+r21*a12+r22*a22
		z[i+1] = [3]float64{r02, r12, r22}
		rs[i] = Mat3{{r00, r01, r02}, {r10, r11, r12}, {r20, r21, r22}}
	}
}

// Forward returns the pad centre in the base frame for joint angles q.
func (m *Model) Forward(q [3]float64) [3]float64 {
	o, _, r := m.frames(&q)
	return vec3.Add(o[3], r.MulVec(m.p.Tool))
}

// Eval fills dst with the pad position, frame-3 orientation, pad normal and
// Jacobian at q.
func (m *Model) Eval(dst *Kin, q [3]float64) {
	o, z, r := m.frames(&q)
	m.eval(dst, &o, &z, &r)
}

// eval fills dst from the frames' origins o, z axes z and frame 3's
// rotation r (MulVec's and Cross's arithmetic, written out).
func (m *Model) eval(dst *Kin, o, z *[4][3]float64, r *Mat3) {
	dst.R = *r
	tl, pn, o3 := &m.p.Tool, &m.p.PadNormal, &o[3]
	pad := [3]float64{
		o3[0] + (r[0][0]*tl[0] + r[0][1]*tl[1] + r[0][2]*tl[2]),
		o3[1] + (r[1][0]*tl[0] + r[1][1]*tl[1] + r[1][2]*tl[2]),
		o3[2] + (r[2][0]*tl[0] + r[2][1]*tl[1] + r[2][2]*tl[2]),
	}
	dst.Pad = pad
	dst.Normal = [3]float64{
		r[0][0]*pn[0] + r[0][1]*pn[1] + r[0][2]*pn[2],
		r[1][0]*pn[0] + r[1][1]*pn[1] + r[1][2]*pn[2],
		r[2][0]*pn[0] + r[2][1]*pn[1] + r[2][2]*pn[2],
	}
	for i := range 3 {
		zi, oi := &z[i], &o[i]
		d0, d1, d2 := pad[0]-oi[0], pad[1]-oi[1], pad[2]-oi[2]
		dst.J[0][i] = zi[1]*d2 - zi[2]*d1
		dst.J[1][i] = zi[2]*d0 - zi[0]*d2
		dst.J[2][i] = zi[0]*d1 - zi[1]*d0
	}
}

// Jacobian returns ∂Pad/∂q at q.
func (m *Model) Jacobian(q [3]float64) Mat3 {
	var k Kin
	m.Eval(&k, q)
	return k.J
}

// PointJacobian returns a point fixed in frame link (1..3) at local
// coordinates local, in the base frame, with its linear Jacobian jv and the
// angular-velocity Jacobian jw of that link (columns beyond link are zero).
// The plant model uses it to assemble the joint-space mass matrix.
func (m *Model) PointJacobian(q [3]float64, link int, local [3]float64) (p [3]float64, jv, jw Mat3) {
	if link < 1 || link > 3 {
		panic(fmt.Sprintf("exo: PointJacobian link %d not in 1..3", link))
	}
	o, z, _ := m.frames(&q)
	r := m.rotation(&q, link)
	p = vec3.Add(o[link], r.MulVec(local))
	for i := range link {
		c := vec3.Cross(z[i], vec3.Sub(p, o[i]))
		for k := range 3 {
			jv[k][i] = c[k]
			jw[k][i] = z[i][k]
		}
	}
	return p, jv, jw
}

// rotation returns the orientation of frame link (0..3).
func (m *Model) rotation(q *[3]float64, link int) Mat3 {
	r := Identity()
	for i := range link {
		l := m.p.Links[i]
		st, ct := math.Sincos(q[i] + l.Offset)
		sa, ca := m.twist[i][0], m.twist[i][1]
		a := Mat3{{ct, -st * ca, st * sa}, {st, ct * ca, -ct * sa}, {0, sa, ca}}
		r = r.Mul(&a)
	}
	return r
}

// InLimits reports whether q is inside the joint limits.
func (m *Model) InLimits(q [3]float64) bool {
	for i := range 3 {
		if q[i] < m.p.JointMin[i] || q[i] > m.p.JointMax[i] {
			return false
		}
	}
	return true
}

// ClampLimits returns q clamped to the joint limits.
func (m *Model) ClampLimits(q [3]float64) [3]float64 {
	for i := range 3 {
		q[i] = math.Max(m.p.JointMin[i], math.Min(m.p.JointMax[i], q[i]))
	}
	return q
}

// LinkKin is the kinematic state of the three links at one configuration,
// for a point fixed in each link (its centre of mass, for a dynamics model).
type LinkKin struct {
	P  [3][3]float64 // point of link i+1, base frame [m]
	R  [3]Mat3       // orientation of link i+1
	Jv [3]Mat3       // ∂P[i]/∂q (columns beyond joint i+1 are zero)
	Jw [3]Mat3       // angular-velocity Jacobian of link i+1
}

// Links fills dst for the points local[i] fixed in link i+1 (frame i+1
// coordinates) at joint angles q. It computes the chain once for all three.
func (m *Model) Links(dst *LinkKin, q [3]float64, local *[3][3]float64) {
	var o, z [4][3]float64
	m.chain(&q, &o, &z, &dst.R)
	m.links(dst, &o, &z, local)
}

// EvalLinks fills k as Eval and lk as Links do, from one pass over the
// chain: the simulated plant needs both at every substep.
func (m *Model) EvalLinks(k *Kin, lk *LinkKin, q [3]float64, local *[3][3]float64) {
	var o, z [4][3]float64
	m.chain(&q, &o, &z, &lk.R)
	m.eval(k, &o, &z, &lk.R[2])
	m.links(lk, &o, &z, local)
}

// links fills dst's points and Jacobians from the frames' origins o and
// z axes z and the links' rotations dst.R. Every entry is written, the
// zeros beyond each link's joints included.
func (m *Model) links(dst *LinkKin, o, z *[4][3]float64, local *[3][3]float64) {
	for link := range 3 {
		r, lc := &dst.R[link], &local[link]
		on := &o[link+1]
		p := [3]float64{
			on[0] + (r[0][0]*lc[0] + r[0][1]*lc[1] + r[0][2]*lc[2]),
			on[1] + (r[1][0]*lc[0] + r[1][1]*lc[1] + r[1][2]*lc[2]),
			on[2] + (r[2][0]*lc[0] + r[2][1]*lc[1] + r[2][2]*lc[2]),
		}
		dst.P[link] = p
		jv, jw := &dst.Jv[link], &dst.Jw[link]
		for i := range 3 {
			if i > link {
				jv[0][i], jv[1][i], jv[2][i] = 0, 0, 0
				jw[0][i], jw[1][i], jw[2][i] = 0, 0, 0
				continue
			}
			zi, oi := &z[i], &o[i]
			d0, d1, d2 := p[0]-oi[0], p[1]-oi[1], p[2]-oi[2]
			jv[0][i] = zi[1]*d2 - zi[2]*d1
			jv[1][i] = zi[2]*d0 - zi[0]*d2
			jv[2][i] = zi[0]*d1 - zi[1]*d0
			jw[0][i], jw[1][i], jw[2][i] = zi[0], zi[1], zi[2]
		}
	}
}
