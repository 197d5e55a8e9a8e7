package kes

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/haptex/haptex/tactile"
)

// SurfaceParams maps the fabric's surface data and weave to the tactile
// renderer's pseudo-topology parameters for a piece of fabric widthU x
// heightV metres:
//
//   - SMD (KES-FB4 geometric roughness) and MIU, MMD (friction and its mean
//     deviation) are averaged over the warp and weft strokes: the renderer
//     takes one isotropic random component and draws its anisotropy from
//     the weave;
//   - yarn spacings are 1/ends and 1/picks (for knits, wales and courses);
//   - the weave type maps as plain and crepe -> Plain (crepe is a plain
//     ground with high-twist yarns; its crinkle is in SMD), twill -> Twill
//     with the repeat read from "a/b" (a warp ends up, b down), satin ->
//     Satin, jersey, rib and interlock -> Knit, fleece and pile -> Pile,
//     anything else -> NonWoven (no periodic structure: only SMD shapes it);
//   - a measured skin-on-fabric friction coefficient, when the file has one,
//     replaces MIU for the finger.
func (f *Fabric) SurfaceParams(widthU, heightV float64) (tactile.SurfaceParams, error) {
	fr := f.Friction(Bias)
	p := tactile.SurfaceParams{
		SMD:     f.Roughness(Bias).SMD,
		MIU:     fr.Mu,
		MMD:     fr.MuDev,
		WidthU:  widthU,
		HeightV: heightV,
	}
	p.WarpSpacing, p.WeftSpacing = f.ThreadSpacing()
	if mu, ok := f.SkinFriction(); ok {
		p.FingerMu = mu
	}
	switch f.Weave.Type {
	case "plain", "crepe":
		p.Weave = tactile.Plain
	case "twill":
		p.Weave = tactile.Twill
		up, down, err := twillRepeat(f.Weave.Repeat)
		if err != nil {
			return p, fmt.Errorf("kes: %s: weave.repeat: %w", f.File, err)
		}
		p.Repeat, p.Float = up+down, up
	case "satin":
		p.Weave = tactile.Satin
	case "jersey", "rib", "interlock":
		p.Weave = tactile.Knit
	case "fleece", "pile":
		p.Weave = tactile.Pile
	default:
		p.Weave = tactile.NonWoven
	}
	return p, nil
}

// twillRepeat reads a twill's "a/b" notation (optionally followed by the
// diagonal's direction, "3/1 Z"): a ends up, b down per pick. An empty
// repeat is the common 2/1 twill.
func twillRepeat(s string) (up, down int, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 2, 1, nil
	}
	if i := strings.IndexByte(s, ' '); i >= 0 {
		s = s[:i]
	}
	a, b, ok := strings.Cut(s, "/")
	if ok {
		up, err = strconv.Atoi(a)
		if err == nil {
			down, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || up < 1 || down < 1 || up+down > 16 {
		return 0, 0, fmt.Errorf("twill repeat %q: want a/b with a, b >= 1 and a+b <= 16", s)
	}
	return up, down, nil
}
