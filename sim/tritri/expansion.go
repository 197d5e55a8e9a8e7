package tritri

import "math"

// Floating-point expansions (Shewchuk 1997, §2): a number held exactly as
// a sum of float64 components of increasing magnitude that do not overlap.
// Sums and products of float64s are exact as two components (twoSum,
// twoProd); so an orientation determinant of float64 coordinates is
// exactly an expansion, and its sign that of its largest component.

// twoSum returns a+b rounded and its rounding error, exactly (Knuth).
func twoSum(a, b float64) (x, y float64) {
	x = a + b
	bv := x - a
	av := x - bv
	return x, (a - av) + (b - bv)
}

// twoProd returns a·b rounded and its rounding error, exact while the
// product neither overflows nor underflows (the error is then a
// float64).
func twoProd(a, b float64) (x, y float64) {
	x = a * b
	return x, math.FMA(a, b, -x)
}

// grow appends to h[:0] the expansion e + b (Shewchuk's
// grow_expansion_zeroelim) and returns it.
func grow(h, e []float64, b float64) []float64 {
	h = h[:0]
	q := b
	for _, x := range e {
		var r float64
		q, r = twoSum(q, x)
		if r != 0 {
			h = append(h, r)
		}
	}
	if q != 0 || len(h) == 0 {
		h = append(h, q)
	}
	return h
}

// scale appends to h[:0] the expansion e·b (scale_expansion_zeroelim) and
// returns it.
func scale(h, e []float64, b float64) []float64 {
	h = h[:0]
	q, r := twoProd(e[0], b)
	if r != 0 {
		h = append(h, r)
	}
	for _, x := range e[1:] {
		p1, p0 := twoProd(x, b)
		s, r := twoSum(q, p0)
		if r != 0 {
			h = append(h, r)
		}
		q, r = twoSum(p1, s)
		if r != 0 {
			h = append(h, r)
		}
	}
	if q != 0 || len(h) == 0 {
		h = append(h, q)
	}
	return h
}

// addExp adds the expansion f (negated with neg), component by
// component, to the expansion e, using tmp as scratch, and returns the
// sum and the scratch.
func addExp(e, tmp, f []float64, neg bool) (sum, scratch []float64) {
	for _, x := range f {
		if neg {
			x = -x
		}
		tmp = grow(tmp, e, x)
		e, tmp = tmp, e
	}
	return e, tmp
}

// mulAdd adds the exact product x·y·z of three two-component expansions
// (of which a component may be zero) to e, negated with neg.
func mulAdd(e, tmp []float64, x, y, z [2]float64, neg bool) (sum, scratch []float64) {
	var b [8]float64
	for _, xi := range x {
		if xi == 0 {
			continue
		}
		for _, yj := range y {
			if yj == 0 {
				continue
			}
			hi, lo := twoProd(xi, yj)
			p := [2]float64{lo, hi}
			for _, zk := range z {
				if zk == 0 {
					continue
				}
				e, tmp = addExp(e, tmp, scale(b[:0], p[:], zk), neg)
			}
		}
	}
	return e, tmp
}

// inRange reports whether every product of three differences of the
// values is safe from overflow and underflow in twoProd: the magnitudes
// lie between 2^-300 and 2^300 (zeros are exact and always safe).
func inRange(vs ...float64) bool {
	for _, v := range vs {
		if a := math.Abs(v); a != 0 && (a < 0x1p-300 || a > 0x1p300) {
			return false
		}
	}
	return true
}

// diff is a-b as an exact two-component expansion.
func diff(a, b float64) [2]float64 {
	x, y := twoSum(a, -b)
	return [2]float64{y, x}
}

// expOrient3D is Orient3D evaluated exactly with expansions; ok is false
// when the coordinates are out of the expansions' range.
func expOrient3D(a, b, c, d [3]float64) (s int, ok bool) {
	var ad, bd, cd [3][2]float64
	for i := range 3 {
		ad[i], bd[i], cd[i] = diff(a[i], d[i]), diff(b[i], d[i]), diff(c[i], d[i])
		if !inRange(ad[i][0], ad[i][1], bd[i][0], bd[i][1], cd[i][0], cd[i][1]) {
			return 0, false
		}
	}
	// Each of the six products has at most 8 components, and zero
	// elimination keeps the sum within their total.
	var ba, bb [64]float64
	e, tmp := ba[:1], bb[:0]
	// det = adx(bdy·cdz − bdz·cdy) + bdx(cdy·adz − cdz·ady) + cdx(ady·bdz − adz·bdy)
	for _, t := range [3][3][2]float64{{ad[0], bd[1], cd[2]}, {bd[0], cd[1], ad[2]}, {cd[0], ad[1], bd[2]}} {
		e, tmp = mulAdd(e, tmp, t[0], t[1], t[2], false)
	}
	for _, t := range [3][3][2]float64{{ad[0], bd[2], cd[1]}, {bd[0], cd[2], ad[1]}, {cd[0], ad[2], bd[1]}} {
		e, tmp = mulAdd(e, tmp, t[0], t[1], t[2], true)
	}
	return sign(e[len(e)-1]), true
}

// expOrient2D is Orient2D evaluated exactly with expansions.
func expOrient2D(a, b, c [2]float64) (s int, ok bool) {
	ac0, ac1, bc0, bc1 := diff(a[0], c[0]), diff(a[1], c[1]), diff(b[0], c[0]), diff(b[1], c[1])
	if !inRange(ac0[0], ac0[1], ac1[0], ac1[1], bc0[0], bc0[1], bc1[0], bc1[1]) {
		return 0, false
	}
	var ba, bb [16]float64
	e, tmp := ba[:1], bb[:0]
	one := [2]float64{0, 1}
	e, tmp = mulAdd(e, tmp, ac0, bc1, one, false)
	e, _ = mulAdd(e, tmp, ac1, bc0, one, true)
	return sign(e[len(e)-1]), true
}
