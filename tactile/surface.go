package tactile

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
)

// Defaults and limits of SurfaceParams. Values marked "model default" are
// haptex choices, not measurements, and values marked "recalled" come from
// the literature without a verified primary source; both are meant to be
// replaced by measured values when a lab has them.
const (
	DefaultGridN       = 512
	DefaultGridSpacing = 20e-6 // [m]: k up to 25 cycles/mm, 500 Hz at 20 mm/s
	MaxGridSpacing     = 25e-6 // [m]: 400 Hz, the top of the array's 20-400 Hz band, at 20 mm/s
	// DefaultHurst gives a Brownian profile, like the surfaces HAPTEX's
	// renderer was first tested on (Allerkamp et al. 2007).
	DefaultHurst = 0.5
	// DefaultIrregularity: yarn positions scatter by 3 % of their spacing
	// (model default).
	DefaultIrregularity = 0.03
	DefaultFabricSize   = 0.3 // [m]
	// DefaultNonUniformity is of the order of the mass irregularity (CVm)
	// of ring-spun yarns, 10-15 % (recalled).
	DefaultNonUniformity       = 0.12
	DefaultNonUniformityLength = 5e-3 // [m], model default
	DefaultMapSpacing          = 1e-3 // [m], HAPTEX's large-scale resolution (tutorial §4.4)
	// KESFrictionProbeLength is the length along the sliding direction
	// of the KES-FB4 friction contactor, ten Ø0.5 mm piano wires side by
	// side under 50 gf (Kawabata, The Standardization and Analysis of
	// Hand Evaluation, 2nd ed., Textile Machinery Society of Japan,
	// 1980): MIU and MMD are the friction of that 5 mm window.
	KESFrictionProbeLength = 5e-3 // [m]
)

// sigmaPerMD converts a mean absolute deviation to a standard deviation for
// a Gaussian variable: MD = σ √(2/π), so σ = MD √(π/2) ≈ 1.2533 MD.
var sigmaPerMD = math.Sqrt(math.Pi / 2)

// SurfaceParams describes a fabric's surface for the tactile renderer. The
// fabric-import code (calib/kes) fills it from a KES-FB4 record and the
// fabric's construction. Lengths are metres; a zero field takes the default
// named in its comment.
type SurfaceParams struct {
	// KES-FB4 surface values (Kawabata 1980; KES µm × 1e-6 for SMD).
	SMD float64 // geometric roughness, mean deviation of the thickness trace [m]; σ_h = 1.2533 SMD
	MIU float64 // mean coefficient of friction, steel-wire probe [-]
	MMD float64 // mean deviation of MIU [-]; friction fluctuation σ_μ = 1.2533 MMD

	// Construction. u runs along the weft, v along the warp.
	Weave       WeaveType
	WarpSpacing float64 // centre distance of neighbouring warp yarns (1/ends per m), measured along u [m]; knits: wale spacing
	WeftSpacing float64 // centre distance of neighbouring weft yarns (1/picks per m), measured along v [m]; knits: course spacing
	Repeat      int     // twill and satin: ends per repeat (0: twill 3, satin 5)
	Float       int     // twill: warp ends up per pick (0: Repeat-1, e.g. 2/1 twill)
	Move        int     // satin: move number, coprime with Repeat (0: 2 for 5-end, else the smallest valid)

	// Shape of the pseudo-topology's spectrum (haptex model defaults).
	WeaveFraction float64 // share of the height variance in the weave's periodic structure, [0, 1] (0: per weave, see WeaveType)
	Hurst         float64 // Hurst exponent H of the random part, (0, 1) (0: DefaultHurst); 2D spectrum ∝ k^-2(1+H)
	Irregularity  float64 // relative irregularity of yarn positions, broadens the weave peaks, [0, 0.3] (0: DefaultIrregularity)

	// Finger on fabric. The pad's own mechanics (its tangential
	// stiffness) are the renderer's Fingertip.
	FingerMu float64 // skin-on-fabric mean friction coefficient (0: MIU)

	// Large-scale non-uniformity map over the whole fabric.
	WidthU, HeightV     float64 // fabric size [m] (0: DefaultFabricSize)
	NonUniformity       float64 // coefficient of variation of the map (0: DefaultNonUniformity)
	NonUniformityLength float64 // correlation length of the map [m] (0: DefaultNonUniformityLength)
	MapSpacing          float64 // map resolution [m] (0: DefaultMapSpacing)
	UniformMap          bool    // a map of ones instead of the random map

	// k-space grid of the KES model.
	GridN       int     // bins per axis, even, [64, 1024] (0: DefaultGridN)
	GridSpacing float64 // spatial resolution [m], <= MaxGridSpacing (0: DefaultGridSpacing)
}

// withDefaults returns p with its zero fields set.
func (p SurfaceParams) withDefaults() SurfaceParams {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	switch p.Weave {
	case Twill:
		if p.Repeat == 0 {
			p.Repeat = 3
		}
		if p.Float == 0 {
			p.Float = p.Repeat - 1
		}
	case Satin:
		if p.Repeat == 0 {
			p.Repeat = 5
		}
		if p.Move == 0 {
			for m := 2; m < p.Repeat-1; m++ {
				if gcd(m, p.Repeat) == 1 {
					p.Move = m
					break
				}
			}
		}
	}
	def(&p.WeaveFraction, p.Weave.defaultWeaveFraction())
	def(&p.Hurst, DefaultHurst)
	def(&p.Irregularity, DefaultIrregularity)
	def(&p.FingerMu, p.MIU)
	def(&p.WidthU, DefaultFabricSize)
	def(&p.HeightV, DefaultFabricSize)
	def(&p.NonUniformity, DefaultNonUniformity)
	def(&p.NonUniformityLength, DefaultNonUniformityLength)
	def(&p.MapSpacing, DefaultMapSpacing)
	if p.GridN == 0 {
		p.GridN = DefaultGridN
	}
	def(&p.GridSpacing, DefaultGridSpacing)
	return p
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// inRange reports whether v is a number in [lo, hi].
func inRange(v, lo, hi float64) bool { return v >= lo && v <= hi }

// validateKES checks the fields the KES model uses (after withDefaults).
func (p *SurfaceParams) validateKES() error {
	if !(p.SMD > 0) || p.SMD > 1e-3 {
		if p.SMD > 1e-3 {
			return fmt.Errorf("tactile: SMD %g m is not a roughness; pass metres (KES µm × 1e-6)", p.SMD)
		}
		return fmt.Errorf("tactile: SMD %g m must be > 0", p.SMD)
	}
	if !(p.MIU > 0) || p.MIU > 2 {
		return fmt.Errorf("tactile: MIU %g must be in (0, 2]", p.MIU)
	}
	if p.Weave < Plain || p.Weave > NonWoven {
		return fmt.Errorf("tactile: weave type %v not set or unknown", p.Weave)
	}
	if p.GridN%2 != 0 || p.GridN < 64 || p.GridN > 1024 {
		return fmt.Errorf("tactile: GridN %d must be even and in [64, 1024]", p.GridN)
	}
	if !(p.GridSpacing > 0) || p.GridSpacing > MaxGridSpacing {
		return fmt.Errorf("tactile: grid spacing %g m must be in (0, %g] m to reach 400 Hz at 20 mm/s", p.GridSpacing, MaxGridSpacing)
	}
	for _, s := range [...]struct {
		name string
		v    float64
	}{{"WarpSpacing", p.WarpSpacing}, {"WeftSpacing", p.WeftSpacing}} {
		if !inRange(s.v, 2*p.GridSpacing, 10e-3) {
			return fmt.Errorf("tactile: %s %g m must be in [%g, 0.01] m (two grid steps up to 1 cm)", s.name, s.v, 2*p.GridSpacing)
		}
	}
	switch p.Weave {
	case Twill:
		if p.Repeat < 3 || p.Repeat > 16 || p.Float < 1 || p.Float >= p.Repeat {
			return fmt.Errorf("tactile: twill %d/%d: need 3 <= Repeat <= 16 and 1 <= Float < Repeat", p.Float, p.Repeat-p.Float)
		}
	case Satin:
		if p.Repeat < 5 || p.Repeat > 16 || p.Move < 2 || p.Move >= p.Repeat-1 || gcd(p.Move, p.Repeat) != 1 {
			return fmt.Errorf("tactile: satin repeat %d move %d: need 5 <= Repeat <= 16 and 2 <= Move < Repeat-1 coprime with Repeat", p.Repeat, p.Move)
		}
	}
	if !inRange(p.WeaveFraction, 0, 1) {
		return fmt.Errorf("tactile: WeaveFraction %g must be in [0, 1]", p.WeaveFraction)
	}
	if !(p.Hurst > 0 && p.Hurst < 1) {
		return fmt.Errorf("tactile: Hurst exponent %g must be in (0, 1)", p.Hurst)
	}
	if !inRange(p.Irregularity, 0, 0.3) {
		return fmt.Errorf("tactile: Irregularity %g must be in [0, 0.3]", p.Irregularity)
	}
	return nil
}

// validateCommon checks the friction and map fields every surface uses.
func (p *SurfaceParams) validateCommon() error {
	if !inRange(p.MIU, 0, 2) || !inRange(p.MMD, 0, 1) || !inRange(p.FingerMu, 0, 5) {
		return fmt.Errorf("tactile: friction MIU %g, MMD %g, FingerMu %g out of range ([0, 2], [0, 1], [0, 5])", p.MIU, p.MMD, p.FingerMu)
	}
	if p.MMD > 0 && !(p.MIU > 0) {
		return fmt.Errorf("tactile: MMD %g needs MIU > 0 to scale it to the finger", p.MMD)
	}
	if !inRange(p.MapSpacing, 1e-4, 1e-2) {
		return fmt.Errorf("tactile: MapSpacing %g m must be in [0.1, 10] mm", p.MapSpacing)
	}
	if !inRange(p.WidthU, p.MapSpacing, 10) || !inRange(p.HeightV, p.MapSpacing, 10) {
		return fmt.Errorf("tactile: fabric size %g x %g m must be between one map step and 10 m", p.WidthU, p.HeightV)
	}
	if p.WidthU/p.MapSpacing*p.HeightV/p.MapSpacing > 16e6 {
		return fmt.Errorf("tactile: a %g x %g m map at %g m is over 16 million cells", p.WidthU, p.HeightV, p.MapSpacing)
	}
	if !inRange(p.NonUniformity, 0, 2) || !inRange(p.NonUniformityLength, p.MapSpacing, 1) {
		return fmt.Errorf("tactile: non-uniformity %g (want [0, 2]) or its length %g m (want [map step, 1 m]) out of range", p.NonUniformity, p.NonUniformityLength)
	}
	return nil
}

// Spectrum is a two-sided 2D power spectrum of surface height on a centred
// grid: bin (i, j) sits at k = ((i - Nu/2) Dku, (j - Nv/2) Dkv) [cycles/m],
// and P[j*Nu+i] is the height variance in that bin [m²]. The sum of P is
// the height variance.
type Spectrum struct {
	Nu, Nv   int     // even
	Dku, Dkv float64 // bin size [cycles/m]
	P        []float64
}

// Resolution returns the spatial resolution of the grid, 1/(2 k_Nyquist)
// on its coarser axis [m].
func (sp Spectrum) Resolution() float64 {
	return math.Max(1/(float64(sp.Nu)*sp.Dku), 1/(float64(sp.Nv)*sp.Dkv))
}

// projDirs is the number of stroke directions over [0, π) for which the
// projected spectrum is tabulated (1° apart); the frame interpolates
// linearly between neighbours, so amplitudes are continuous in direction.
const projDirs = 180

// Surface is a fabric's pseudo-topology (the surface as the skin perceives
// it): a small-scale 2D height spectrum fine enough for 400 Hz at 20 mm/s,
// a friction-fluctuation term, and large-scale non-uniformity maps. A
// Surface is immutable and safe to share between goroutines.
type Surface struct {
	params SurfaceParams

	shape  Spectrum // normalised: sums to 1, symmetric, no DC
	sigmaH float64  // geometric height σ [m]
	// fricSigma is σ_μ, the standard deviation of the finger's friction
	// coefficient along a stroke: 1.2533 MMD (FingerMu/MIU).
	fricSigma float64
	// fricGain is 1 / Σ_j r_j H(k_j)², H the KES friction probe's window
	// (a box of KESFrictionProbeLength) and r the projected shape, the
	// mean over strokes along u and v: the friction field's spectrum is
	// σ_μ² fricGain r(k), so that the probe reads σ_μ.
	fricGain float64

	// Projected shape: proj[d*nk+j] is the share of the variance at
	// |k∥| = bink[j] for stroke direction d π/projDirs.
	nk    int
	dk1   float64   // regular 1D bin size, half the grid step [cycles/m]
	bink  []float64 // bin centres [cycles/m]
	log2k []float64 // log2(bink[j]), j >= 1
	proj  []float64

	map40, map320 *Map
}

// NewSurface builds a fabric's pseudo-topology from its Kawabata surface
// values and its construction, with the random parts drawn from seed.
//
// Mapping, and where each step comes from:
//   - Height σ_h = 1.2533 SMD, the Gaussian relation between mean deviation
//     and standard deviation (sigmaPerMD). The KES probe
//     (Ø0.5 mm wire, 10 gf) was designed so that its trace correlates with
//     subjective roughness, so the trace is taken as an approximation of the
//     surface after the skin's filtering (HAPTEX tutorial §4.4) and its
//     variance is not inverse-filtered.
//   - Spectral shape (haptex model: a power law plus weave peaks): a
//     share WeaveFraction of σ_h² sits in the harmonics of the weave's
//     repeat pattern (yarn spacings WarpSpacing along u, WeftSpacing along v;
//     weave type), broadened by Irregularity; the rest is a self-affine
//     random part (1 + (k_u ℓ_u)² + (k_v ℓ_v)²)^-(1+H) with ℓ the yarn
//     spacings, anisotropic like the weave (isotropic, ℓ = √(ℓ_u ℓ_v), for
//     pile and non-wovens).
//   - Friction: MMD is the mean deviation of the steel-wire friction MIU;
//     its relative size MMD/MIU is taken to carry over to the finger, whose
//     friction fluctuates by σ_μ = 1.2533 MMD FingerMu/MIU. The friction
//     field along a stroke has the height's spectral shape (the yarns
//     cause both), scaled so that KES's probe, which reads the friction
//     averaged over its 5 mm contact (KESFrictionProbeLength), sees σ_μ.
//     Under normal force F the pad's net tangential force is that field
//     averaged under the pad's pressure, F μ̄: the pad filters it through
//     its own window, the Fourier transform of its pressure along the
//     stroke (Surface.excite), so that only wavelengths of the order of
//     the patch and longer move the pad as a whole. The net force's
//     fluctuation displaces the pad through its tangential impedance (the
//     renderer's Fingertip: F μ̄ / k_t below the impedance's corner
//     frequency, falling 6 dB/octave above it), and adds to the height
//     variance. The array moves its pins normally; the direction of
//     contactor movement matters little (HAPTEX tutorial §4.2).
//   - Large scale: a lognormal random map of mean 1, coefficient of
//     variation NonUniformity and correlation length NonUniformityLength,
//     at MapSpacing over WidthU x HeightV. KES has no measure of it; the
//     defaults are stand-ins for a measured map (Surface.WithMaps).
//
// Surfaces of one spectral shape (a fabric, whatever its SMD) share the
// shape's projection tables, read only: NewSurface keeps those of the
// last eight shapes it projected, so it may be called from any goroutine.
func NewSurface(p SurfaceParams, seed uint64) (*Surface, error) {
	p = p.withDefaults()
	if err := p.validateKES(); err != nil {
		return nil, err
	}
	if err := p.validateCommon(); err != nil {
		return nil, err
	}
	shape := kesShape(&p)
	return newSurface(shape, sigmaPerMD*p.SMD, p, seed)
}

// normalise symmetrises sp (P(k) = P(-k), as for any real height field),
// removes DC and everything beyond the grid's inscribed circle |k| <=
// k_Nyquist (the square grid's corners would let diagonal strokes reach
// √2 higher frequencies than axial ones), and scales it to unit sum; it
// returns the variance it had after the band limit.
func normalise(sp *Spectrum) float64 {
	nu, nv := sp.Nu, sp.Nv
	kn := math.Min(float64(nu/2)*sp.Dku, float64(nv/2)*sp.Dkv)
	for j := range nv {
		kv := float64(j-nv/2) * sp.Dkv
		for i := range nu {
			a, b := j*nu+i, mod(nv-j, nv)*nu+mod(nu-i, nu)
			if math.Hypot(float64(i-nu/2)*sp.Dku, kv) > kn {
				sp.P[a] = 0
				continue
			}
			if a < b {
				m := (sp.P[a] + sp.P[b]) / 2
				sp.P[a], sp.P[b] = m, m
			}
		}
	}
	sp.P[nv/2*nu+nu/2] = 0
	var sum float64
	for _, v := range sp.P {
		sum += v
	}
	for i := range sp.P {
		sp.P[i] /= sum
	}
	return sum
}

func newSurface(shape Spectrum, sigmaH float64, p SurfaceParams, seed uint64) (*Surface, error) {
	s := &Surface{params: p, shape: shape, sigmaH: sigmaH}
	if p.MIU > 0 {
		s.fricSigma = sigmaPerMD * p.MMD * (p.FingerMu / p.MIU)
	}
	s.projectShared()
	s.fricGain = s.probeGain(KESFrictionProbeLength)
	var m *Map
	var err error
	if p.UniformMap {
		m, err = UniformMap(p.WidthU, p.HeightV, p.MapSpacing)
	} else {
		m, err = RandomMap(p.WidthU, p.HeightV, p.MapSpacing, p.NonUniformity, p.NonUniformityLength, seed)
	}
	if err != nil {
		return nil, err
	}
	s.map40, s.map320 = m, m
	return s, nil
}

// The 1D bins of the projection are dk1 apart, except below fineEdge dk1,
// where they are fineBins times finer: at 500 mm/s the whole NP I band
// (8-60 Hz) lies inside the first regular bin, and the excitation
// interpolates W² linearly between bin centres.
const (
	fineBins = 16
	fineEdge = 8
)

// trapPoints is the quadrature of a far cell whose trapezoid reaches into
// the fine bins: that many points across the trapezoid, each weighted by
// its density.
const trapPoints = 16

// deposit adds p at |k∥| = x dk1 to the two nearest bins of row.
func deposit(row []float64, x, p float64) {
	x = binOf(math.Abs(x))
	n := int(x)
	t := x - float64(n)
	row[n] += p * (1 - t)
	row[n+1] += p * t
}

// binOf returns the fractional 1D bin index of |k∥| = x dk1.
func binOf(x float64) float64 {
	if x < fineEdge {
		return x * fineBins
	}
	return fineEdge*fineBins + (x - fineEdge)
}

// project tabulates the shape projected onto each stroke direction:
// P_φ(k∥) = Σ over bins with |k·ê_φ| = k∥, deposited on the 1D bins with
// linear (tent) weights, which keep each bin's first moment. The spectrum
// is symmetric, so each pair (k, -k) is visited once.
//
// Each bin stands for a cell of uniform spectral density, whose projection
// is a trapezoid rather than a point: projected as points, a column of
// cells would land on every other 1D bin for a stroke along an axis and on
// all of them a degree away, and the low-frequency end of a fast stroke
// would change by several dB with direction. A cell is therefore deposited
// as two points at ±h about its centre, h² being the variance of its
// trapezoid (exact for strokes along an axis); where the trapezoid reaches
// into the fine bins, as trapPoints points weighted by its density. The
// cells next to the origin carry the whole low-frequency end of fast
// strokes, so cells within nearCells of the origin are integrated with
// nearSub x nearSub points each instead, and the hole the removed DC bin
// leaves is made round: the points within the circle of the DC cell's area
// are dropped, and the DC cell's points outside it take the mean density of
// its four neighbours. Each direction is then scaled to unit sum.
func (s *Surface) project() {
	const nearCells, nearSub = 8, 16
	sp := &s.shape
	nu, nv := sp.Nu, sp.Nv
	s.dk1 = math.Min(sp.Dku, sp.Dkv) / 2
	kmax := math.Hypot(float64(nu/2)*sp.Dku, float64(nv/2)*sp.Dkv) / s.dk1
	s.nk = int(binOf(kmax)) + 4
	s.proj = make([]float64, projDirs*s.nk)
	s.bink = make([]float64, s.nk)
	s.log2k = make([]float64, s.nk)
	for j := range s.nk {
		x := float64(j) / fineBins
		if j >= fineEdge*fineBins {
			x = fineEdge + float64(j-fineEdge*fineBins)
		}
		s.bink[j] = x * s.dk1
		s.log2k[j] = math.Log2(s.bink[j])
	}

	var far, near []projBin
	su, sv := sp.Dku/s.dk1, sp.Dkv/s.dk1
	dc := nv/2*nu + nu/2
	hole := math.Sqrt(su * sv / math.Pi) // radius of the DC cell's area
	for j := range nv {
		for i := range nu {
			a, b := j*nu+i, mod(nv-j, nv)*nu+mod(nu-i, nu)
			p := sp.P[a]
			if a == dc {
				p = (sp.P[dc-1] + sp.P[dc+1] + sp.P[dc-nu] + sp.P[dc+nu]) / 4
			}
			if p == 0 || a > b {
				continue
			}
			if a < b {
				p *= 2
			}
			ci, cj := i-nu/2, j-nv/2
			if abs(ci) > nearCells || abs(cj) > nearCells {
				far = append(far, projBin{float64(ci) * su, float64(cj) * sv, p})
				continue
			}
			for y := range nearSub {
				for x := range nearSub {
					ku := (float64(ci) + (float64(x)+0.5)/nearSub - 0.5) * su
					kv := (float64(cj) + (float64(y)+0.5)/nearSub - 0.5) * sv
					if math.Hypot(ku, kv) < hole {
						continue
					}
					near = append(near, projBin{ku, kv, p / (nearSub * nearSub)})
				}
			}
		}
	}
	// Directions are independent: share them among the CPUs.
	workers := min(runtime.GOMAXPROCS(0), 8)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for d := w; d < projDirs; d += workers {
				s.projectDir(d, far, near, su, sv)
			}
		})
	}
	wg.Wait()
}

type projBin struct{ ku, kv, p float64 } // k in units of dk1

// projectDir fills the projection table's row for direction d.
func (s *Surface) projectDir(d int, far, near []projBin, su, sv float64) {
	c, sn := math.Cos(math.Pi*float64(d)/projDirs), math.Sin(math.Pi*float64(d)/projDirs)
	row := s.proj[d*s.nk : (d+1)*s.nk]
	// A cell's projection is the trapezoid box(wa) ⊗ box(wb), wa >= wb the
	// cell's widths along the direction; half-width hw, variance h².
	wa, wb := su*math.Abs(c), sv*math.Abs(sn)
	if wa < wb {
		wa, wb = wb, wa
	}
	hw := (wa + wb) / 2
	h := math.Sqrt((wa*wa + wb*wb) / 12)
	var off, wt [trapPoints]float64
	var wsum float64
	for m := range trapPoints {
		x := -hw + (float64(m)+0.5)*2*hw/trapPoints
		off[m] = x
		wt[m] = 1 // a box when wb = 0
		if wb > 0 {
			wt[m] = math.Min(1, (hw-math.Abs(x))/wb)
		}
		wsum += wt[m]
	}
	for m := range wt {
		wt[m] /= wsum
	}
	for _, b := range far {
		x := b.ku*c + b.kv*sn
		if math.Abs(x)-hw < fineEdge {
			// In the fine bins two points are too coarse a quadrature of
			// the trapezoid.
			for m, o := range off {
				deposit(row, x+o, b.p*wt[m])
			}
			continue
		}
		deposit(row, x-h, b.p/2)
		deposit(row, x+h, b.p/2)
	}
	for _, b := range near {
		deposit(row, b.ku*c+b.kv*sn, b.p)
	}
	var sum float64
	for _, v := range row {
		sum += v
	}
	for j := range row {
		row[j] /= sum
	}
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// kesShape returns the normalised spectral shape of the KES model.
func kesShape(p *SurfaceParams) Spectrum {
	n := p.GridN
	dk := 1 / (float64(n) * p.GridSpacing)
	sp := Spectrum{Nu: n, Nv: n, Dku: dk, Dkv: dk, P: make([]float64, n*n)}

	// Random part.
	lu, lv := p.WarpSpacing, p.WeftSpacing
	if p.Weave == Pile || p.Weave == NonWoven {
		lu = math.Sqrt(p.WarpSpacing * p.WeftSpacing)
		lv = lu
	}
	random := make([]float64, n*n)
	var rsum float64
	for j := range n {
		kv := float64(j-n/2) * dk
		for i := range n {
			ku := float64(i-n/2) * dk
			v := math.Pow(1+sq(ku*lu)+sq(kv*lv), -(1 + p.Hurst))
			random[j*n+i] = v
			rsum += v
		}
	}
	rsum -= random[n/2*n+n/2]
	random[n/2*n+n/2] = 0

	// Periodic part: harmonics of the repeat, each a Gaussian of width
	// Irregularity |k| (positional jitter broadens higher harmonics more)
	// but at least half a bin so that every peak is resolved on the grid.
	weave := make([]float64, n*n)
	var wsum float64
	gx, gy := make([]float64, n), make([]float64, n)
	for _, pk := range weavePeaks(p) {
		sigma := math.Max(p.Irregularity*math.Hypot(pk.ku, pk.kv), dk/2) / dk // [bins]
		ci, cj := pk.ku/dk+float64(n/2), pk.kv/dk+float64(n/2)
		r := 3 * sigma
		i0, i1 := max(0, int(math.Ceil(ci-r))), min(n-1, int(math.Floor(ci+r)))
		j0, j1 := max(0, int(math.Ceil(cj-r))), min(n-1, int(math.Floor(cj+r)))
		if i0 > i1 || j0 > j1 {
			continue // beyond the grid's resolution
		}
		// The Gaussian is separable. Normalise over the untruncated
		// kernel, so that a peak cut by the grid edge loses the part
		// beyond it.
		norm := gaussSum(ci, sigma) * gaussSum(cj, sigma)
		for ii := i0; ii <= i1; ii++ {
			gx[ii] = gauss1(float64(ii)-ci, sigma)
		}
		for jj := j0; jj <= j1; jj++ {
			gy[jj] = gauss1(float64(jj)-cj, sigma)
		}
		for jj := j0; jj <= j1; jj++ {
			a := pk.power * gy[jj] / norm
			row := weave[jj*n : (jj+1)*n]
			for ii := i0; ii <= i1; ii++ {
				row[ii] += a * gx[ii]
			}
		}
		wsum += pk.power * sumRange(gx, i0, i1) * sumRange(gy, j0, j1) / norm
	}
	wf := p.WeaveFraction
	if !(wsum > 0) {
		wf = 0
	}
	for i := range sp.P {
		v := (1 - wf) * random[i] / rsum
		if wf > 0 {
			v += wf * weave[i] / wsum
		}
		sp.P[i] = v
	}
	normalise(&sp)
	return sp
}

func gauss1(x, s float64) float64 { return math.Exp(-x * x / (2 * s * s)) }

// gaussSum returns the sum of gauss1(i - c, s) over all integers i within
// 4 s of c.
func gaussSum(c, s float64) float64 {
	var g float64
	for i := math.Ceil(c - 4*s - 1); i <= c+4*s+1; i++ {
		g += gauss1(i-c, s)
	}
	return g
}

func sumRange(x []float64, i0, i1 int) float64 {
	var s float64
	for _, v := range x[i0 : i1+1] {
		s += v
	}
	return s
}

// Params returns the parameters the surface was built with, defaults
// filled in.
func (s *Surface) Params() SurfaceParams { return s.params }

// Spectrum returns a copy of the height spectrum (geometric part) [m²].
func (s *Surface) Spectrum() Spectrum {
	sp := s.shape
	sp.P = make([]float64, len(s.shape.P))
	v := s.sigmaH * s.sigmaH
	for i, x := range s.shape.P {
		sp.P[i] = x * v
	}
	return sp
}

// HeightStd returns the standard deviation of the surface's height, σ_h =
// 1.2533 SMD for a KES surface [m].
func (s *Surface) HeightStd() float64 { return s.sigmaH }

// FrictionStd returns σ_μ, the standard deviation of the finger's friction
// coefficient along a stroke [-].
func (s *Surface) FrictionStd() float64 { return s.fricSigma }

// Map40 and Map320 return the large-scale maps that weight the 40 Hz and
// 320 Hz amplitudes of each pin.
func (s *Surface) Map40() *Map  { return s.map40 }
func (s *Surface) Map320() *Map { return s.map320 }

// WithMaps returns a copy of s whose large-scale maps are m40 and m320 (for
// example measured ones, or different maps for the two channels to allow
// for the better spatial acuity at 320 Hz, HAPTEX tutorial §4.4).
func (s *Surface) WithMaps(m40, m320 *Map) (*Surface, error) {
	if m40 == nil || m320 == nil {
		return nil, errors.New("tactile: WithMaps needs two maps")
	}
	c := *s
	c.map40, c.map320 = m40, m320
	return &c, nil
}

// TemporalSpectrum fills freq and power with the height spectrum a point
// of the finger meets when it slides over the surface at speed [m/s] in
// direction dir [rad, from the u axis]: power[j] is the height variance
// [m²] at temporal frequency freq[j] [Hz]. The bins are not evenly spaced
// (finer near 0). It fills min(len(freq), len(power), Bins()) bins and
// returns that number.
func (s *Surface) TemporalSpectrum(freq, power []float64, dir, speed float64) int {
	d0, d1, t := s.dirIndex(dir)
	v := s.sigmaH * s.sigmaH
	r0, r1 := s.proj[d0*s.nk:(d0+1)*s.nk], s.proj[d1*s.nk:(d1+1)*s.nk]
	n := min(len(freq), len(power), s.nk)
	for j := range n {
		freq[j] = speed * s.bink[j]
		power[j] = v * ((1-t)*r0[j] + t*r1[j])
	}
	return n
}

// Bins returns the number of bins TemporalSpectrum can fill.
func (s *Surface) Bins() int { return s.nk }

// dirIndex returns the two tabulated directions around dir and the weight
// of the second.
func (s *Surface) dirIndex(dir float64) (d0, d1 int, t float64) {
	x := math.Mod(dir/math.Pi*projDirs, projDirs)
	if x < 0 {
		x += projDirs
	}
	d0 = int(x)
	t = x - float64(d0)
	if d0 >= projDirs { // x rounded up to projDirs
		d0, t = 0, 0
	}
	return d0, (d0 + 1) % projDirs, t
}

// probeGain returns 1 / Σ_j r_j sinc²(π k_j length), the mean over strokes
// along u and v (KES measures along warp and weft): the factor that scales
// the projected shape r to a friction field of which a probe averaging
// over length reads unit variance. A shape the probe cannot see at all
// gives 0 (no fluctuation the measurement could attribute).
func (s *Surface) probeGain(length float64) float64 {
	var seen float64
	for _, d := range [2]int{0, projDirs / 2} {
		for j, r := range s.proj[d*s.nk : (d+1)*s.nk] {
			x := math.Pi * s.bink[j] * length
			h := 1.0
			if x > 0 {
				h = math.Sin(x) / x
			}
			seen += r * h * h / 2
		}
	}
	if !(seen > 0) {
		return 0
	}
	return 1 / seen
}

// The pad's window: a pressure p ∝ 1 - ρ² over an ellipse, summed across
// a stroke, is a line load ∝ (1 - s²/h²)^(3/2) along it, h the ellipse's
// half-width in the stroke's direction; its Fourier transform, normalised
// to 1 at k = 0, is 8 J₂(z)/z² with z = 2π k h. padWindow2 tabulates its
// square at padPerUnit points per unit of z up to padZMax, where it has
// fallen below 10⁻⁶ (-60 dB) for good; beyond, the window is 0.
const (
	padZMax    = 40
	padPerUnit = 64
)

var padWindow2 = func() (t [padZMax*padPerUnit + 1]float64) {
	t[0] = 1
	for i := 1; i < len(t); i++ {
		z := float64(i) / padPerUnit
		p := 8 * math.Jn(2, z) / (z * z)
		t[i] = p * p
	}
	return t
}()

// padWindowSq returns the square of the pad's window at z = 2π k h,
// interpolated linearly in the table; 0 at and beyond padZMax.
func padWindowSq(z float64) float64 {
	x := z * padPerUnit
	if !(x < padZMax*padPerUnit) {
		return 0
	}
	i := int(x)
	a := x - float64(i)
	return padWindow2[i] + a*(padWindow2[i+1]-padWindow2[i])
}

// excite returns the channel excitations of a stroke: E_c = Σ_j 2 r_j
// (σ_h² W_c(f_j)² + σ_f² P(k_j)² W_c(f_j)² / (1 + (f_j/f_c)²)), r_j being
// the share of the variance at f_j = speed bink[j], σ_h the height's
// standard deviation, σ_f² = (F σ_μ / k_t)² fricGain the variance of the
// friction's displacement of the pad below its corner frequency f_c per
// unit of shape (fricVar [m²]; the filtered weights are w's), and P the
// pad's window for a patch of half-width half [m] along the stroke (0: a
// point, P = 1). speed must be > 0 and finite.
func (s *Surface) excite(w *weights, dir, speed, fricVar, half float64) (e [NumChannels]float64) {
	d0, d1, t := s.dirIndex(dir)
	r0, r1 := s.proj[d0*s.nk:(d0+1)*s.nk], s.proj[d1*s.nk:(d1+1)*s.nk]
	log2v := math.Log2(speed)
	zk := 2 * math.Pi * half // z per cycle/m
	var h0, h1, f0, f1 float64
	for j := 1; j < s.nk; j++ {
		r := (1-t)*r0[j] + t*r1[j]
		if r == 0 {
			continue
		}
		rf := r * padWindowSq(zk*s.bink[j]) // the friction's share through the pad's window
		lf, f := log2v+s.log2k[j], speed*s.bink[j]
		i, a, ok := w.at(lf)
		if !ok {
			g := w.outside(f)
			h0 += r * g * w.w2[NonPacinian][i]
			h1 += r * g * w.w2[Pacinian][i]
			f0 += rf * g * w.w2f[NonPacinian][i]
			f1 += rf * g * w.w2f[Pacinian][i]
			continue
		}
		h0 += r * (w.w2[NonPacinian][i] + a*(w.w2[NonPacinian][i+1]-w.w2[NonPacinian][i]))
		h1 += r * (w.w2[Pacinian][i] + a*(w.w2[Pacinian][i+1]-w.w2[Pacinian][i]))
		if rf == 0 {
			continue
		}
		f0 += rf * (w.w2f[NonPacinian][i] + a*(w.w2f[NonPacinian][i+1]-w.w2f[NonPacinian][i]))
		f1 += rf * (w.w2f[Pacinian][i] + a*(w.w2f[Pacinian][i+1]-w.w2f[Pacinian][i]))
	}
	hUm2 := 2 * s.sigmaH * s.sigmaH * 1e12
	fUm2 := 2 * fricVar * 1e12
	e[NonPacinian] = hUm2*h0 + fUm2*f0
	e[Pacinian] = hUm2*h1 + fUm2*f1
	return e
}
