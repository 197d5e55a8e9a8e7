package device

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/haptex/haptex/calib"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/internal/vec3"
)

// PlanMarginRad is how far inside the joint limits PlanPoses keeps its
// poses, so that a device whose encoder zeros are off by several degrees
// still reaches every jig point.
const PlanMarginRad = 0.15

// DefaultJigSigmaM is the placement error PlanPoses assumes for the jig,
// standard deviation per axis [m]: a machined plate with reamed locating
// cones.
const DefaultJigSigmaM = 5e-6

// planGrid is the number of candidate angles per joint.
const planGrid = 7

// PosePlan is a set of jig points for a kinematic calibration, in the
// order to visit them.
type PosePlan struct {
	Params []KinParam `json:"params"`
	// Points are the jig points: where the pad centre is to be held, in
	// the device base frame [m].
	Points [][3]float64 `json:"points_m"`
	// Joints are the nominal joint angles at each point [rad]; the real
	// device's differ by its errors.
	Joints [][3]float64 `json:"joints_rad"`
	// Cond is the identification condition number of Params over the
	// points for the nominal kinematics, at most MaxKinCond.
	Cond float64 `json:"cond"`
	// JigSigmaM is the jig's placement error, standard deviation per
	// axis [m], which RunKinematics weights the poses with (KinNoise).
	// PlanPoses sets DefaultJigSigmaM; set your own jig's.
	JigSigmaM float64 `json:"jig_sigma_m"`
}

// PlanPoses chooses n jig points at which the nominal kinematics'
// parameters params are identifiable, and checks them with Identify.
//
// Candidates are the postures of a 7×7×7 grid over the joint ranges
// shrunk by PlanMarginRad, minus those near a singularity (smallest
// singular value of the pad Jacobian under 2 cm/rad). The points are
// picked greedily for D-optimality: each maximises the determinant of the
// information matrix ΣJᵀJ of the parameters (angles scaled by 0.1 m), the
// volume of the confidence ellipsoid shrinking fastest. The visiting
// order then follows the nearest unvisited point from the home posture.
// 15 points for the 10 DefaultKinParams give a condition number about 12
// and 35 spare measurements; n must exceed len(params)/3.
func PlanPoses(nominal exo.Params, params []KinParam, n int) (*PosePlan, error) {
	if err := checkKinParams(params); err != nil {
		return nil, err
	}
	if 3*n <= len(params) || n > planGrid*planGrid*planGrid {
		return nil, fmt.Errorf("device: pose plan of %d points for %d parameters: want more than %d points, at most %d", n, len(params), len(params)/3, planGrid*planGrid*planGrid)
	}
	m, err := exo.New(nominal)
	if err != nil {
		return nil, fmt.Errorf("device: nominal kinematics: %w", err)
	}
	var cands [][3]float64
	var lo, hi [3]float64
	for i := range 3 {
		lo[i], hi[i] = nominal.JointMin[i]+PlanMarginRad, nominal.JointMax[i]-PlanMarginRad
		if !(lo[i] < hi[i]) {
			return nil, fmt.Errorf("device: joint %d range [%g, %g] rad is narrower than twice the plan margin %g rad", i+1, nominal.JointMin[i], nominal.JointMax[i], PlanMarginRad)
		}
	}
	for a := range planGrid {
		for b := range planGrid {
			for c := range planGrid {
				var q [3]float64
				for i, g := range [3]int{a, b, c} {
					q[i] = lo[i] + (hi[i]-lo[i])*float64(g)/(planGrid-1)
				}
				j := m.Jacobian(q)
				jjt := j.T()
				jjt = j.Mul(&jjt)
				if math.Sqrt(math.Max(exo.SymEigMin(&jjt), 0)) >= 0.02 {
					cands = append(cands, q)
				}
			}
		}
	}
	if len(cands) < n {
		return nil, fmt.Errorf("device: only %d well-conditioned candidate postures for %d points", len(cands), n)
	}

	np := len(params)
	// Each candidate's 3×P rows of the identification Jacobian, angles
	// scaled to lengths so that the determinant weighs them alike.
	rows := make([]*mat.Dense, len(cands))
	for ci, q := range cands {
		jac, _ := identification(&nominal, params, [][3]float64{q})
		for j, k := range params {
			if k.Angle() {
				for r := range 3 {
					jac.Set(r, j, jac.At(r, j)/angleScale)
				}
			}
		}
		rows[ci] = jac
	}
	info := mat.NewSymDense(np, nil)
	for j := range np {
		info.SetSym(j, j, 1e-6) // a weak prior, so that the first picks have a determinant
	}
	used := make([]bool, len(cands))
	var chosen [][3]float64
	for len(chosen) < n {
		var chol mat.Cholesky
		if !chol.Factorize(info) {
			return nil, fmt.Errorf("device: pose plan: information matrix not positive definite")
		}
		var inv mat.SymDense
		if err := chol.InverseTo(&inv); err != nil {
			return nil, fmt.Errorf("device: pose plan: %w", err)
		}
		best, bestGain := -1, math.Inf(-1)
		for ci := range cands {
			if used[ci] {
				continue
			}
			// det(F + JᵀJ) = det(F)·det(I + J F⁻¹ Jᵀ): only the 3×3
			// factor depends on the candidate.
			jac := rows[ci]
			var t, s mat.Dense
			t.Mul(jac, &inv)
			s.Mul(&t, jac.T())
			for r := range 3 {
				s.Set(r, r, s.At(r, r)+1)
			}
			if g := mat.Det(&s); g > bestGain {
				best, bestGain = ci, g
			}
		}
		used[best] = true
		chosen = append(chosen, cands[best])
		jac := rows[best]
		var add mat.SymDense
		add.SymOuterK(1, jac.T())
		info.AddSym(info, &add)
	}

	// Visit nearest-first from home, so the jig travels little.
	plan := &PosePlan{Params: append([]KinParam(nil), params...), JigSigmaM: DefaultJigSigmaM}
	cur := m.Forward(nominal.Home)
	left := chosen
	for len(left) > 0 {
		bi, bd := 0, math.Inf(1)
		for i, q := range left {
			if d := vec3.Norm(vec3.Sub(m.Forward(q), cur)); d < bd {
				bi, bd = i, d
			}
		}
		q := left[bi]
		cur = m.Forward(q)
		plan.Joints = append(plan.Joints, q)
		plan.Points = append(plan.Points, cur)
		left = append(left[:bi:bi], left[bi+1:]...)
	}
	id, err := Identify(nominal, params, plan.Joints)
	if err != nil {
		return nil, err
	}
	if len(id.NotIdentifiable) > 0 {
		return nil, fmt.Errorf("device: pose plan of %d points: %v not identifiable: %w", n, id.NotIdentifiable, calib.ErrIllPosed)
	}
	plan.Cond = id.Cond
	return plan, nil
}
