package experiment

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/devices/twin"
)

// kesExperiment is a 2AFC staircase of the given dimension on fabric,
// on a cloth of side nodes per side.
func kesExperiment(t *testing.T, kind Kind, fabric string, side int) *Experiment {
	t.Helper()
	src := fmt.Sprintf(`format = 1
name = "kes-test"
side = %d
[stimulus]
kind = %q
fabric = %q
[procedure]
kind = "staircase"
[procedure.staircase]
task = { kind = "afc", alternatives = 2 }
scale = "log10"
start = 40
min = 2.5
max = 160
up = 1
down = 2
steps = [0.2, 0.1]
max_trials = 60
`, side, kind, fabric)
	e, err := Parse([]byte(src), "kes-test.toml")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// A level is a Weber fraction of the dimension's KES quantity, read from
// the fabric file: SMD, MIU and B scale with it; EMT, the strain at the
// tensile test's maximum load, falls as the tensile curves stiffen (by
// 1/k exactly where a curve is linear).
func TestKESLevels(t *testing.T) {
	f, err := kes.Library{}.Load("cotton-shirting")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind       Kind
		x          float64
		name       string
		ref, test  float64
		tol, weber float64
	}{
		{Roughness, 100, "SMD", 3.25, 6.5, 1e-12, 1},
		{Friction, 10, "MIU", 0.205, 0.2255, 1e-12, 0.1},
		{Bending, 50, "B", 0.085, 0.1275, 1e-9, 0.5},
		// EMT: warp 3 %, weft 5.5 %.
		{Stiffness, 0, "EMT", 4.25, 4.25, 1e-9, 0},
	} {
		e := kesExperiment(t, c.kind, "cotton-shirting", 8)
		l, ok, err := KESLevelOf(e, f, c.x)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", c.kind, ok, err)
		}
		if l.Quantity != c.name || math.Abs(l.Reference-c.ref) > c.tol*c.ref || math.Abs(l.Test-c.test) > c.tol*c.test || math.Abs(l.Weber-c.weber) > 1e-9 {
			t.Errorf("%s at %g %%: %+v, want %s %g → %g", c.kind, c.x, l, c.name, c.ref, c.test)
		}
	}
	e := kesExperiment(t, Stiffness, "cotton-shirting", 8)
	l, _, err := KESLevelOf(e, f, 100)
	if err != nil {
		t.Fatal(err)
	}
	// Convex curves (LT < 1) reach half their load beyond half their
	// strain.
	if !(l.Test > l.Reference/2) || !(l.Test < l.Reference) {
		t.Errorf("EMT of a fabric twice as stiff: %g %%, the reference's %g %%", l.Test, l.Reference)
	}
	if _, ok, _ := KESLevelOf(kesExperiment(t, ForceScale, "", 8), f, 10); ok {
		t.Error("force-scale scales no KES quantity")
	}
}

// What reaches the finger follows the KES quantity a level scales: on
// cotton shirting the check's delivered cue of roughness and friction
// grows with the level, and the bending cue of the two built-in fabrics
// that differ most in B (silk habutae, 0.0175, and denim, 0.725
// gf·cm²/cm) differs by more than three times the cue's Weber fraction;
// the tensile pull holds polyester lining and silk habutae, which the
// hanging fabric's stretch lost, and orders them as EMT does. -long runs the level sweep of all four properties and every built-in
// fabric on the examples' 16² cloth (figures in docs/evaluation.md).
func TestDeliveredCuesFollowKES(t *testing.T) {
	kinds := []Kind{Roughness, Friction}
	side, intervals, pairs := 8, 2, 0
	// Two levels, a constant-stimuli design's: the short test's time goes
	// into the intervals.
	levels := []float64{40, 160}
	fabrics := []string{"silk-habutae", "denim"}
	across := []Kind{Bending, Stiffness}
	if raceEnabled {
		// The race detector's run checks the code path with one interval
		// of each fabric (the level checks run without it, and the
		// protocols' test renders the roughness levels; rig's TestClamps
		// the pull's second clamp).
		kinds, intervals, across = nil, 1, []Kind{Bending}
	}
	if *long {
		side, levels, intervals = 16, nil, 4
		kinds = []Kind{Roughness, Friction, Stiffness, Bending}
		fabrics = kes.List()
		across = kinds
	}
	for _, kind := range kinds {
		t.Run("levels/"+string(kind), func(t *testing.T) {
			// Each check runs on one core in virtual time: the eight
			// share the machine's cores and answer as they do alone.
			t.Parallel()
			e := kesExperiment(t, kind, "cotton-shirting", side)
			if kind == Roughness {
				e.Stimulus.ReferenceDB = -16
			}
			if kind == Stiffness {
				// Within a fabric the stretch, as tensile-2afc.toml: the
				// pull's light grip slips now and then, and its cue
				// scatters three times as much on cotton shirting
				// (docs/evaluation.md). Both motions last StretchScript's
				// 4.2 s, so the parsed interval holds.
				e.Timing.Motion = "stretch"
			}
			if levels != nil {
				e.Procedure = psych.Config{Kind: psych.KindConstant, Constant: &psych.ConstantConfig{Task: psych.TwoAFC, Levels: levels, Repeats: 1}}
			}
			rep, err := Check(context.Background(), CheckOptions{Experiment: e, Pairs: pairs})
			if err != nil {
				t.Fatal(err)
			}
			// A level's contrast may fall below a smaller level's only
			// within their scatter: each level's log contrast averages
			// the check's pairs, whose log ratio scatters by √2·cue_sd,
			// so two levels' differ by 2·cue_sd/√pairs at one standard
			// deviation; a fall of twice that is a reversal. (Strictly
			// in order, the pull's stiffness within cotton shirting and
			// the flex's bending failed at levels under +30 %, whose
			// contrasts are within that scatter: docs/evaluation.md.)
			n := pairs
			if n == 0 {
				n = checkPairs
			}
			se := 2 * rep.CueSD / math.Sqrt(float64(n))
			best, at := math.Inf(-1), 0.0
			for _, l := range rep.Levels {
				t.Logf("%s %+.4g %% (%s %.4g): cue %.4g against %.4g %s, contrast %.3f", kind, l.X, rep.KES.Quantity, *l.KES, l.CueTest, l.CueReference, rep.Unit, l.Contrast)
				v := math.Log1p(l.Contrast)
				if !(v >= best-2*se) {
					t.Errorf("%s: the contrast at %g %% is %.3g, below the %.3g at %g %% by more than twice their scatter (%.3g in ln(1 + c))", kind, l.X, l.Contrast, math.Expm1(best), at, 2*se)
				}
				if v > best {
					best, at = v, l.X
				}
			}
			t.Logf("%s: efficiency %.3g, cue sd %.3g, valid %v %s", kind, rep.Efficiency, rep.CueSD, rep.Valid, rep.Reason)
			if kind != Bending && !rep.Valid {
				t.Errorf("%s: %s", kind, rep.Reason)
			}
		})
	}
	for _, kind := range across {
		t.Run("fabrics/"+string(kind), func(t *testing.T) {
			t.Parallel()
			e := kesExperiment(t, kind, "", side)
			names := fabrics
			if kind == Stiffness && !*long {
				// The two fabrics the hanging fabric's stretch lost.
				names = []string{"polyester-lining", "silk-habutae"}
			}
			rep, err := CheckFabrics(context.Background(), CheckOptions{Experiment: e}, names, intervals)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep.Fabrics {
				t.Logf("%s %s %.4g %s: cue %.4g ± %.2g %s", f.Fabric, rep.Quantity, f.KES, rep.QuantityUnit, f.Cue, f.CueSD, rep.Unit)
			}
			for _, f := range rep.Unmeasured {
				t.Logf("%s %s %.4g %s: not measured: %s", f.Fabric, rep.Quantity, f.KES, rep.QuantityUnit, f.Error)
				if kind == Stiffness {
					t.Errorf("stiffness: the pull did not hold %s", f.Fabric)
				}
			}
			t.Logf("%s: monotone %v (within the scatter %v), Spearman %s, extremes' contrast %.3g = %.3g Weber fractions", kind, rep.Monotone, rep.MonotoneWithinScatter, rep.SpearmanText(), rep.ExtremeContrast, rep.ExtremeWebers)
			for _, r := range rep.Reversals {
				t.Logf("%s: reversed beyond the scatter: %s under %s by %.3g ± %.2g %s", kind, r.Higher, r.Lower, -r.Difference, r.SE, rep.Unit)
			}
			if kind == Bending && !(rep.ExtremeWebers >= 3) {
				t.Errorf("bending: the extremes' contrast is %.3g Weber fractions, want at least 3", rep.ExtremeWebers)
			}
			// Over every built-in fabric the bending cue is monotone in B
			// (docs/evaluation.md), but two pairs of neighbours lie within
			// their standard errors: a swap or two of neighbours (0.99,
			// 0.98) passes, the device's error at rest (0.88) does not.
			if kind == Bending && len(rep.Fabrics) > 2 && (rep.Spearman == nil || !(*rep.Spearman >= 0.95)) {
				t.Errorf("bending: rank correlation with B %s over %d fabrics, want at least 0.95", rep.SpearmanText(), len(rep.Fabrics))
			}
			if (kind == Bending || kind == Friction) && !rep.MonotoneWithinScatter {
				t.Errorf("%s: %d pairs of fabrics reverse %s's order beyond the scatter", kind, len(rep.Reversals), rep.Quantity)
			}
			// The pull orders the ten in EMT's order but for neighbours
			// whose curves differ little at the strain it reaches: cotton
			// shirting and denim C within the cue's scatter, and silk
			// habutae below wool suiting beyond it (silk's curve 2-24 %
			// above wool's there, outweighed by the rest of the fabric:
			// docs/evaluation.md). One swap is 0.988, the hanging fabric's
			// stretch 0.905 over the eight it held.
			if kind == Stiffness && (rep.Spearman == nil || !(*rep.Spearman >= 0.95)) {
				t.Errorf("stiffness: rank correlation with EMT %s over %d fabrics, want at least 0.95", rep.SpearmanText(), len(rep.Fabrics))
			}
			// The scan orders the ten as SMD does but for wool suiting,
			// 1.9 % under denim D (SMD 3.75 and 3.46 µm; a tenth of the
			// cue's Weber fraction), and knit jersey level with denim D
			// (0.2 %, within their scatter): 0.964. The stroke's slow rub
			// gave 0.867, and with the friction's fluctuation rendered at
			// the yarns' wavelengths 0.782 (docs/evaluation.md).
			if kind == Roughness && len(rep.Fabrics) > 2 && (rep.Spearman == nil || !(*rep.Spearman >= 0.95)) {
				t.Errorf("roughness: rank correlation with SMD %s over %d fabrics, want at least 0.95", rep.SpearmanText(), len(rep.Fabrics))
			}
		})
	}
}

// What the flex motion's cue is made of (docs/evaluation.md): each
// fabric's cue as it is, with B and 2HB doubled (the experiment's level
// +100 %), with its areal mass doubled and with gravity off. The swatch's
// weight hardly loads the finger, so neither the weight nor gravity moves
// the cue by more than its scatter (one interval's cue scatters by 15-30 %
// about the mean of eight), nor over the fabrics by more than 10 %, while
// doubling B raises it by ×1.5-2.0 (a device force error at rest that did
// not grow with B held it to ×1.2 on the softest fabrics before the
// servo's force.contact_rest_mps): over the fabrics by at least ×1.4
// (geometric mean), on cotton by at least ×1.3. The short version handles
// cotton shirting, -long every built-in fabric. Not under the race
// detector: four rigs of a minute of virtual time each.
func TestFlexCueParts(t *testing.T) {
	if raceEnabled && !*long {
		t.Skip("four rigs of a minute of virtual time each: without the race detector")
	}
	fabrics, intervals := []string{"cotton-shirting"}, 8
	if *long {
		fabrics = kes.List()
	}
	// meanRSE returns the mean of c and its standard error relative to it.
	meanRSE := func(c []float64) (m, rse float64) {
		m, rsd := meanRelSD(c)
		return m, rsd / math.Sqrt(float64(len(c)))
	}
	var logs [3]float64 // ln of the ratios: B doubled, W doubled, without gravity
	measured := 0
	for _, name := range fabrics {
		f, err := kes.Library{}.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		heavy := *f
		w := *f.Mass.W
		w.Value, w.SI = 2*w.Value, 2*w.SI
		heavy.Mass.W = &w
		e := kesExperiment(t, Bending, name, 0)
		var cues, rse [4]float64
		var failed error
		for v := range cues {
			fab, x := f, 0.0
			switch v {
			case 1:
				x = 100
			case 2:
				fab = &heavy
			}
			cfg, err := rigConfig(e, rig.Config{}, fab)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Sim.NoGravity = v == 3
			c, err := levelCues(context.Background(), e, cfg, cueBending, intervals, x)
			if err != nil {
				failed = err
				break
			}
			cues[v], rse[v] = meanRSE(c)
		}
		if failed != nil {
			t.Errorf("%s: not measured: %v", name, failed)
			continue
		}
		b, g, wt := cues[1]/cues[0], cues[3]/cues[0], cues[2]/cues[0]
		t.Logf("%s (B %.4g gf·cm²/cm, W %.3g kg/m²): flex cue %.3f N/m (standard error %.0f %%); B doubled ×%.3f, W doubled ×%.3f, without gravity ×%.3f",
			name, f.BendingRigidity(kes.Bias)/9.80665e-5, f.ArealMass(), cues[0], 100*rse[0], b, wt, g)
		// A ratio of two means of eight scatters by about 13 %, and by
		// more on the softest fabrics, whose cue is a few tenths of a
		// newton per metre (silk's ratios by about 20 %): within 30 % or
		// three of the ratio's standard errors.
		tolW := max(0.3, 3*math.Hypot(rse[0], rse[2]))
		tolG := max(0.3, 3*math.Hypot(rse[0], rse[3]))
		if !(math.Abs(wt-1) < tolW) || !(math.Abs(g-1) < tolG) {
			t.Errorf("%s: the weight moves the flex cue: W doubled ×%.3f (want within %.0f %%), without gravity ×%.3f (want within %.0f %%)", name, wt, 100*tolW, g, 100*tolG)
		}
		if !(b < 2.2) || len(fabrics) == 1 && !(b > 1.3) {
			t.Errorf("%s: B doubled ×%.3f, want 1.3-2.2", name, b)
		}
		logs[0], logs[1], logs[2] = logs[0]+math.Log(b), logs[1]+math.Log(wt), logs[2]+math.Log(g)
		measured++
	}
	// Over the fabrics (geometric means): the weight and gravity within
	// 10 %, B doubled at least ×1.4 (the softest fabrics' cue is mostly the
	// device's error: silk's rises by a fifth, the stiffer ones' by half or
	// more).
	if measured > 1 {
		var gm [3]float64
		for i := range gm {
			gm[i] = math.Exp(logs[i] / float64(measured))
		}
		t.Logf("over %d fabrics: B doubled ×%.3f, W doubled ×%.3f, without gravity ×%.3f", measured, gm[0], gm[1], gm[2])
		if !(gm[0] > 1.4) || !(math.Abs(gm[1]-1) < 0.1) || !(math.Abs(gm[2]-1) < 0.1) {
			t.Errorf("over the fabrics: B doubled ×%.3f (want at least 1.4), W doubled ×%.3f, without gravity ×%.3f (want within 10 %%)", gm[0], gm[1], gm[2])
		}
	}
}

// The check of an identification measures each property on every fabric
// of the set: silk habutae and denim differ in roughness by several Weber
// fractions, so the set is valid; a set that renders one fabric twice is
// refused in one line.
func TestCheckSet(t *testing.T) {
	if raceEnabled {
		t.Skip("renders fabrics for about 10 s of CPU; the race detector's run of TestDeliveredCuesFollowKES covers CheckFabrics")
	}
	e := loadExample(t, "evaluation/matching.toml")
	e.Side = 8
	e.Set.Fabrics, e.Set.Properties = []string{"silk-habutae", "denim"}, []Kind{Roughness}
	rep, err := CheckSet(context.Background(), CheckOptions{Experiment: e}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Valid || len(rep.Properties) != 1 || rep.Properties[0].ExtremeWebers < 2 {
		t.Fatalf("valid %v %s: %+v", rep.Valid, rep.Reason, rep.Properties)
	}
	t.Logf("roughness: %+v", rep.Properties[0].Fabrics)
	e.Set.Fabrics = []string{"denim", "denim"}
	if rep, err = CheckSet(context.Background(), CheckOptions{Experiment: e}, 1); err != nil {
		t.Fatal(err)
	}
	if rep.Valid || strings.Contains(rep.Reason, "\n") || !strings.Contains(rep.Reason, "Weber") {
		t.Fatalf("one fabric twice: valid %v, reason %q", rep.Valid, rep.Reason)
	}
}

// A bending level scales the whole bending response of the fabric, its
// rigidities and its bending friction, and nothing else.
func TestScaleBending(t *testing.T) {
	f, err := kes.Library{}.Load("cotton-shirting")
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.Material()
	if err != nil {
		t.Fatal(err)
	}
	if !(m.Hysteresis.BendWeft > 0) || !(m.BendWeft > 0) {
		t.Fatalf("cotton shirting without bending friction: %+v", m.Hysteresis)
	}
	s := scaleBending(m, 2.5)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"weft B", s.BendWeft, 2.5 * m.BendWeft}, {"warp B", s.BendWarp, 2.5 * m.BendWarp}, {"twist", s.BendTwist, 2.5 * m.BendTwist},
		{"weft 2HB", s.Hysteresis.BendWeft, 2.5 * m.Hysteresis.BendWeft}, {"warp 2HB", s.Hysteresis.BendWarp, 2.5 * m.Hysteresis.BendWarp},
	} {
		if c.got != c.want {
			t.Errorf("%s: %g, want %g", c.name, c.got, c.want)
		}
	}
	s.BendWeft, s.BendWarp, s.BendTwist, s.Hysteresis.BendWeft, s.Hysteresis.BendWarp = m.BendWeft, m.BendWarp, m.BendTwist, m.Hysteresis.BendWeft, m.Hysteresis.BendWarp
	if !reflect.DeepEqual(s, m) {
		t.Errorf("scaling the bending changed more than the bending:\n%+v\n%+v", s, m)
	}
}

// Where the built-in fabrics' own tensile curves (calib/kes: KES-FB1's
// loading curve of warp and weft) order them as their EMT does, the
// target a tensile cue can meet (docs/evaluation.md, "Tensile stiffness
// across the fabrics"). Stretched in warp and weft at once to the same
// strain, the mean of the two directions' force per width falls with EMT
// over all ten from 1 % strain on; loaded to the same force per width,
// their mean strain rises with EMT only from about half of KES's maximum
// load F_m (500 gf/cm), far above what a pinch holds: at a tenth of F_m
// and below, cotton shirting (LT 0.72 and 0.62, J-shaped) stretches
// further than denim C (EMT 4.70 %, LT 0.765) although its EMT is 4.25 %.
// One direction alone orders them as the mean EMT at no load: denim's
// warp (EMT 3.5 %) is stiffer than denim C's (4.7 %) and the weft the
// other way round.
func TestTensileCurvesOrderByEMT(t *testing.T) {
	type fabric struct {
		name     string
		emt      float64
		warp, wf kes.TensileCurve
	}
	var fs []fabric
	for _, name := range kes.List() {
		f, err := kes.Library{}.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		emt, err := strainAtMaxLoad(f, 1)
		if err != nil {
			t.Fatal(err)
		}
		wa, err := f.TensileCurve(kes.Warp)
		if err != nil {
			t.Fatal(err)
		}
		we, err := f.TensileCurve(kes.Weft)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, fabric{name, emt, wa, we})
	}
	slices.SortFunc(fs, func(a, b fabric) int { return cmp.Compare(a.emt, b.emt) })
	// strainAt is the strain at which curve c carries force per width F.
	strainAt := func(c kes.TensileCurve, F float64) float64 {
		lo, hi := 0.0, 10.0
		for range 200 {
			if m := (lo + hi) / 2; c.Force(m) < F {
				lo = m
			} else {
				hi = m
			}
		}
		return (lo + hi) / 2
	}
	// breaks lists the fabrics whose stiffness s does not fall below the
	// previous one's, in order of increasing EMT.
	breaks := func(s func(f fabric) float64) []string {
		var out []string
		for i := 1; i < len(fs); i++ {
			if !(s(fs[i]) < s(fs[i-1])) {
				out = append(out, fs[i].name)
			}
		}
		return out
	}
	for _, e := range []float64{0.01, 0.02, 0.03} {
		if b := breaks(func(f fabric) float64 { return f.warp.Force(e) + f.wf.Force(e) }); len(b) > 0 {
			t.Errorf("at %g %% strain in warp and weft, the mean force does not fall with EMT at %v", 100*e, b)
		}
	}
	fm := fs[0].warp.ForceMax
	load := func(x float64) func(f fabric) float64 {
		return func(f fabric) float64 { return -(strainAt(f.warp, x*fm) + strainAt(f.wf, x*fm)) }
	}
	if b := breaks(load(0.5)); len(b) > 0 {
		t.Errorf("at half of F_m, the mean strain does not rise with EMT at %v", b)
	}
	for _, x := range []float64{0.01, 0.02, 0.05, 0.1} {
		b := breaks(load(x))
		t.Logf("at %g F_m the mean strain breaks EMT's order at %v", x, b)
		if !slices.Contains(b, "denim-kumari2016-c") {
			t.Errorf("at %g F_m denim C no longer stretches less than cotton shirting (%v): the tensile cue's target changed", x, b)
		}
	}
	for _, x := range []float64{0.01, 0.1, 0.5, 1} {
		if b := breaks(func(f fabric) float64 { return -strainAt(f.warp, x*fm) }); len(b) == 0 {
			t.Errorf("at %g F_m the warp alone orders the fabrics as the mean EMT", x)
		}
	}
}

// TestFlexCueSpread takes apart the flex cue's variation from one interval
// to the next on cotton shirting: the cue as the sensors measure it, as the
// cloth computes it at the measured pads (ForceDes), and both with the
// pads' friction on the fabric off. The cloth's bending alone must repeat
// within 5 %; what the pads' friction and the device's force error at rest
// add is logged (docs/evaluation.md, "What the bending cue is made of").
func TestFlexCueSpread(t *testing.T) {
	if raceEnabled && !*long {
		t.Skip("two rigs of a minute of virtual time each: without the race detector")
	}
	const intervals = 12
	e := kesExperiment(t, Bending, "cotton-shirting", 0)
	f, err := kes.Library{}.Load("cotton-shirting")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := rigConfig(e, rig.Config{}, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, frictionless := range []bool{false, true} {
		// The sensors' cue as measured, and the cloth's from the same
		// intervals with the sensors' force replaced by the cloth's.
		var cloth []float64
		both := &Cue{compute: func(tr *rig.IntervalTrace, script *twin.Script) (float64, error) {
			c, err := cueBending.compute(tr, script)
			if err != nil {
				return c, err
			}
			for i := range tr.Haptics {
				for f := range tr.Haptics[i].Fingers {
					p := &tr.Haptics[i].Fingers[f]
					p.ForceMeas = p.ForceDes
				}
			}
			d, err := cueBending.compute(tr, script)
			cloth = append(cloth, d)
			return c, err
		}}
		sensor, err := func() ([]float64, error) {
			r, s, script, err := lockstepRig(context.Background(), e, cfg)
			if err != nil {
				return nil, err
			}
			defer s.Finish()
			if frictionless {
				m := r.Material()
				m.FrictionStatic, m.FrictionKinetic = 0, 0
				if err := r.SetMaterial(m, 10*time.Millisecond); err != nil {
					return nil, err
				}
				s.Advance(2 * time.Second)
			}
			return playCues(context.Background(), e, r, s, script, both, intervals)
		}()
		if err != nil {
			t.Fatal(err)
		}
		ms, rs := meanRelSD(sensor)
		mc, rc := meanRelSD(cloth)
		how := "with the pads' friction"
		if frictionless {
			how = "without it"
		}
		t.Logf("%s: the sensors' cue %.3f N/m (%.1f %% an interval), the cloth's %.3f N/m (%.1f %%)", how, ms, 100*rs, mc, 100*rc)
		if frictionless && !(rc <= 0.05) {
			t.Errorf("without the pads' friction the cloth's flex cue varies by %.1f %% from one interval to the next, want at most 5 %%", 100*rc)
		}
	}
}

// meanRelSD returns the mean of c and its standard deviation relative to
// it.
func meanRelSD(c []float64) (m, rsd float64) {
	for _, v := range c {
		m += v / float64(len(c))
	}
	var ss float64
	for _, v := range c {
		ss += (v - m) * (v - m)
	}
	return m, math.Sqrt(ss/float64(len(c)-1)) / math.Abs(m)
}
