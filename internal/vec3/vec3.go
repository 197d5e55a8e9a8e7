// Package vec3 is the module's one set of 3-vector helpers on [3]float64
// (positions [m], forces [N] and the like) for the packages above the
// cloth simulation: the device models, the servo, calibration and the
// application. sim keeps its own set, as it may import no module package;
// render has its own, GL-side. The sums run in the order written, so
// results are the same wherever a helper replaced the inline sums.
package vec3

import "math"

// Add returns a+b.
func Add(a, b [3]float64) [3]float64 { return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// Sub returns a-b.
func Sub(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// Scale returns s a.
func Scale(s float64, a [3]float64) [3]float64 { return [3]float64{s * a[0], s * a[1], s * a[2]} }

// Dot returns a·b.
func Dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// Cross returns a×b.
func Cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// Norm returns |a|.
func Norm(a [3]float64) float64 { return math.Sqrt(Dot(a, a)) }
