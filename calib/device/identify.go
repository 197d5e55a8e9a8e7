package device

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/haptex/haptex/devices/exo"
)

// MaxKinCond is the largest condition number (identification Jacobian
// with unit-norm columns) at which a set of kinematic parameters counts as
// identifiable from a set of poses. Beyond it some combination of the
// parameters moves the pad by less than 0.5% of what the best-determined
// one does, and measurement noise reaches that combination amplified as
// much. Good pose sets for the default parameters reach 10 to 25.
const MaxKinCond = 200

// Dependency says that a parameter cannot be told apart from others over
// a pose set: its effect on the pad is (nearly) a combination of theirs.
type Dependency struct {
	Param KinParam `json:"param"`
	// With lists the parameters it trades off against, largest share
	// first; empty when the parameter has no effect on the pad at all.
	With []KinParam `json:"with"`
}

func (d Dependency) String() string {
	if len(d.With) == 0 {
		return d.Param.String() + " (no effect on the pad)"
	}
	s := d.Param.String() + " (trades off against "
	for i, w := range d.With {
		if i > 0 {
			s += ", "
		}
		s += w.String()
	}
	return s + ")"
}

// Identifiability is what a set of poses can tell about a set of
// parameters.
type Identifiability struct {
	// Params are the parameters asked about, Identifiable those the poses
	// determine: taken in the order asked, each is kept when the condition
	// number with the ones kept before stays at most MaxKinCond.
	Params       []KinParam `json:"params"`
	Identifiable []KinParam `json:"identifiable"`
	// NotIdentifiable are the others, with what they depend on.
	NotIdentifiable []Dependency `json:"not_identifiable"`
	// Cond is the condition number for Identifiable (unit-norm columns),
	// 0 when nothing is.
	Cond float64 `json:"cond"`
	// Singular are the singular values of the identification Jacobian of
	// all of Params (unit-norm columns), largest first: one near zero per
	// dependency.
	Singular []float64 `json:"singular"`
}

// Identify reports which of params the joint postures determine, for the
// kinematics p: the columns of the identification Jacobian ∂pad/∂params,
// scaled to unit norm, are taken in turn and kept while the condition
// number stays at most MaxKinCond. A parameter that is not kept is listed
// with the kept parameters whose columns best reproduce its own.
func Identify(p exo.Params, params []KinParam, joints [][3]float64) (*Identifiability, error) {
	if err := checkKinParams(params); err != nil {
		return nil, err
	}
	if len(joints) == 0 {
		return nil, fmt.Errorf("device: identifiability needs poses")
	}
	for i, q := range joints {
		if !finite3(q) {
			return nil, fmt.Errorf("device: pose %d joints %v not finite", i, q)
		}
	}
	jac, _ := identification(&p, params, joints)
	scaleColumns(jac)
	id := &Identifiability{Params: slices.Clone(params), Singular: singular(jac)}
	rows, _ := jac.Dims()
	// The greedy test needs only whether the condition number exceeds
	// MaxKinCond: the eigenvalues of the kept columns' Gram matrix give
	// it (squared) to far better than that, at the cost of a k×k problem.
	var gram mat.SymDense
	gram.SymOuterK(1, jac.T())
	var kept []int
	for j, k := range params {
		if gram.At(j, j) == 0 {
			id.NotIdentifiable = append(id.NotIdentifiable, Dependency{Param: k})
			continue
		}
		cand := append(slices.Clone(kept), j)
		if len(cand) <= rows && gramCond(&gram, cand) <= MaxKinCond {
			kept = cand
			id.Identifiable = append(id.Identifiable, k)
			continue
		}
		id.NotIdentifiable = append(id.NotIdentifiable, Dependency{Param: k, With: partners(jac, kept, j, params)})
	}
	if len(kept) > 0 {
		id.Cond = cond(columns(jac, kept))
	}
	return id, nil
}

// gramCond returns the condition number of the columns cols of a matrix
// whose Gram matrix is g: √(λ_max/λ_min) of g restricted to cols.
func gramCond(g *mat.SymDense, cols []int) float64 {
	sub := mat.NewSymDense(len(cols), nil)
	for a, i := range cols {
		for b := a; b < len(cols); b++ {
			sub.SetSym(a, b, g.At(i, cols[b]))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sub, false) {
		return math.Inf(1)
	}
	ev := eig.Values(nil) // ascending
	if !(ev[0] > 0) {
		return math.Inf(1)
	}
	return math.Sqrt(ev[len(ev)-1] / ev[0])
}

// partners regresses column j on the kept columns and returns the
// parameters whose coefficients carry at least a fifth of the largest,
// largest first (the columns have unit norm, so coefficients compare).
func partners(jac *mat.Dense, kept []int, j int, params []KinParam) []KinParam {
	if len(kept) == 0 {
		return nil
	}
	var x mat.VecDense
	if err := x.SolveVec(columns(jac, kept), jac.ColView(j)); err != nil {
		return nil
	}
	order := make([]int, len(kept))
	big := 0.0
	for i := range order {
		order[i] = i
		big = math.Max(big, math.Abs(x.AtVec(i)))
	}
	slices.SortFunc(order, func(a, b int) int { return -cmpAbs(x.AtVec(a), x.AtVec(b)) })
	var with []KinParam
	for _, i := range order {
		if math.Abs(x.AtVec(i)) >= big/5 {
			with = append(with, params[kept[i]])
		}
	}
	return with
}

func cmpAbs(a, b float64) int {
	switch a, b := math.Abs(a), math.Abs(b); {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// scaleColumns scales each non-zero column of a to unit norm.
func scaleColumns(a *mat.Dense) {
	r, c := a.Dims()
	for j := range c {
		n := mat.Norm(a.ColView(j), 2)
		if n == 0 {
			continue
		}
		for i := range r {
			a.Set(i, j, a.At(i, j)/n)
		}
	}
}

// columns returns the listed columns of a.
func columns(a *mat.Dense, cols []int) *mat.Dense {
	r, _ := a.Dims()
	out := mat.NewDense(r, len(cols), nil)
	for c, j := range cols {
		for i := range r {
			out.Set(i, c, a.At(i, j))
		}
	}
	return out
}

// singular returns the singular values of a, largest first.
func singular(a *mat.Dense) []float64 {
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDNone) {
		return nil
	}
	return svd.Values(nil)
}

// cond returns σ_max/σ_min of a, +Inf when a has fewer rows than columns
// or a zero singular value.
func cond(a *mat.Dense) float64 {
	r, c := a.Dims()
	if r < c {
		return math.Inf(1)
	}
	s := singular(a)
	if len(s) == 0 || !(s[len(s)-1] > 0) {
		return math.Inf(1)
	}
	return s[0] / s[len(s)-1]
}

func finite3(v [3]float64) bool { return finite(v[0]) && finite(v[1]) && finite(v[2]) }
