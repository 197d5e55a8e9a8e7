package kes

import "slices"

// Entry is one value of a fabric with its dotted field path, for listings
// such as `haptex fabric show`.
type Entry struct {
	Field string `json:"field"`
	Value
}

// Entries lists every value the fabric's file gives, in file-format order:
// weave, mass, tensile, shear, bending, compression, surface, skin. Warp and
// weft groups that loading copied from a mean group are not repeated.
func (f *Fabric) Entries() []Entry {
	var out []Entry
	add := func(field string, v *Value) {
		if v != nil {
			out = append(out, Entry{Field: field, Value: *v})
		}
	}
	own := func(group string) bool { return !slices.Contains(f.fromMean, group) }
	add("weave.ends_per_cm", f.Weave.EndsPerCm)
	add("weave.picks_per_cm", f.Weave.PicksPerCm)
	add("weave.warp_count", f.Weave.WarpCount)
	add("weave.weft_count", f.Weave.WeftCount)
	add("mass.W", f.Mass.W)
	dirs := []string{"warp", "weft", "bias", "mean"}
	for i, t := range []*TensileValues{f.Tensile.Warp, f.Tensile.Weft, f.Tensile.Bias, f.Tensile.Mean} {
		if p := "tensile." + dirs[i]; t != nil && own(p) {
			add(p+".EMT", t.EMT)
			add(p+".LT", t.LT)
			add(p+".WT", t.WT)
			add(p+".RT", t.RT)
		}
	}
	dirs = []string{"warp", "weft", "mean"}
	for i, s := range []*ShearValues{f.Shear.Warp, f.Shear.Weft, f.Shear.Mean} {
		if p := "shear." + dirs[i]; s != nil && own(p) {
			add(p+".G", s.G)
			add(p+".2HG", s.TwoHG)
			add(p+".2HG5", s.TwoHG5)
		}
	}
	for i, b := range []*BendingValues{f.Bending.Warp, f.Bending.Weft, f.Bending.Mean} {
		if p := "bending." + dirs[i]; b != nil && own(p) {
			add(p+".B", b.B)
			add(p+".2HB", b.TwoHB)
		}
	}
	c := f.Compression
	add("compression.LC", c.LC)
	add("compression.WC", c.WC)
	add("compression.RC", c.RC)
	add("compression.T0", c.T0)
	add("compression.TM", c.TM)
	for i, s := range []*SurfaceValues{f.Surface.Warp, f.Surface.Weft, f.Surface.Mean} {
		if p := "surface." + dirs[i]; s != nil && own(p) {
			add(p+".MIU", s.MIU)
			add(p+".MMD", s.MMD)
			add(p+".SMD", s.SMD)
		}
	}
	if f.Skin != nil {
		add("skin.mu", f.Skin.Mu)
	}
	return out
}
