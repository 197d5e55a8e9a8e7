package tritri

import (
	"math"
	"math/big"
)

// Exact orientation predicates: the sign of a determinant, evaluated in
// floating point where a bound on its rounding error proves the sign, and
// exactly otherwise (Shewchuk, "Adaptive precision floating-point
// arithmetic and fast robust geometric predicates", Discrete Comput. Geom.
// 18:305-363, 1997: the bounds are his o3derrboundA and ccwerrboundA, the
// exact evaluation his floating-point expansions). Every input float64 is
// an exact rational, so the sign is that of the exact determinant of the
// given coordinates; no input is rounded. Expansions need products that
// neither overflow nor underflow; coordinates whose differences span more
// than that go to exact rational arithmetic (math/big) instead.

// eps is half a unit in the last place of 1: float64 rounding's relative
// error bound.
const eps = 0x1p-53

var (
	o3dBound = (7 + 56*eps) * eps
	o2dBound = (3 + 16*eps) * eps
)

// Orient3D returns the sign of det[a-d; b-d; c-d]: +1 when d lies below
// the plane through a, b, c seen with a, b, c counter-clockwise (on the
// side their right-handed normal points away from), -1 above, 0 exactly
// on it. The coordinates must be finite.
func Orient3D(a, b, c, d [3]float64) int {
	adx, ady, adz := a[0]-d[0], a[1]-d[1], a[2]-d[2]
	bdx, bdy, bdz := b[0]-d[0], b[1]-d[1], b[2]-d[2]
	cdx, cdy, cdz := c[0]-d[0], c[1]-d[1], c[2]-d[2]
	bc := bdy*cdz - bdz*cdy
	ca := cdy*adz - cdz*ady
	ab := ady*bdz - adz*bdy
	det := adx*bc + bdx*ca + cdx*ab
	perm := math.Abs(adx)*(math.Abs(bdy*cdz)+math.Abs(bdz*cdy)) +
		math.Abs(bdx)*(math.Abs(cdy*adz)+math.Abs(cdz*ady)) +
		math.Abs(cdx)*(math.Abs(ady*bdz)+math.Abs(adz*bdy))
	if b := o3dBound * perm; det > b || -det > b {
		return sign(det)
	}
	// Too close to call, or over- or underflowed: exactly.
	if s, ok := expOrient3D(a, b, c, d); ok {
		return s
	}
	return exactOrient3D(a, b, c, d)
}

// Orient2D returns the sign of det[a-c; b-c]: +1 when a, b, c turn
// counter-clockwise, -1 clockwise, 0 collinear. The coordinates must be
// finite.
func Orient2D(a, b, c [2]float64) int {
	l := (a[0] - c[0]) * (b[1] - c[1])
	r := (a[1] - c[1]) * (b[0] - c[0])
	det := l - r
	if b := o2dBound * (math.Abs(l) + math.Abs(r)); det > b || -det > b {
		return sign(det)
	}
	if s, ok := expOrient2D(a, b, c); ok {
		return s
	}
	return exactOrient2D(a, b, c)
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func rat(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

func ratSub(a, b float64) *big.Rat { return new(big.Rat).Sub(rat(a), rat(b)) }

func exactOrient3D(a, b, c, d [3]float64) int {
	var ad, bd, cd [3]*big.Rat
	for i := range 3 {
		ad[i], bd[i], cd[i] = ratSub(a[i], d[i]), ratSub(b[i], d[i]), ratSub(c[i], d[i])
	}
	minor := func(p, q [3]*big.Rat, i, j int) *big.Rat {
		l := new(big.Rat).Mul(p[i], q[j])
		return l.Sub(l, new(big.Rat).Mul(p[j], q[i]))
	}
	det := new(big.Rat).Mul(ad[0], minor(bd, cd, 1, 2))
	det.Add(det, new(big.Rat).Mul(bd[0], minor(cd, ad, 1, 2)))
	det.Add(det, new(big.Rat).Mul(cd[0], minor(ad, bd, 1, 2)))
	return det.Sign()
}

func exactOrient2D(a, b, c [2]float64) int {
	l := new(big.Rat).Mul(ratSub(a[0], c[0]), ratSub(b[1], c[1]))
	r := new(big.Rat).Mul(ratSub(a[1], c[1]), ratSub(b[0], c[0]))
	return l.Sub(l, r).Sign()
}
