package kes

// FormatVersion is the fabric-file format this package reads (the file's
// `format` key). FORMAT.md documents it.
const FormatVersion = 1

// Status says where one number comes from.
type Status string

const (
	// Measured: read from a published or laboratory KES-F measurement of this
	// very fabric; the value names its source and the table it came from.
	Measured Status = "measured"
	// ClassTypical: a value typical of the fabric's class, not a measurement of
	// one fabric; the source says how it was chosen.
	ClassTypical Status = "class-typical"
	// Derived: computed from other values of the same file by a KES
	// definition (the note names the formula), e.g. WT from LT, EMT and F_m.
	Derived Status = "derived"
)

// Class names a fabric class. Each class other than Other has indicative
// range bounds that validation enforces (classBounds).
type Class string

const (
	Silk            Class = "silk"
	CottonShirting  Class = "cotton-shirting"
	WoolSuiting     Class = "wool-suiting"
	Denim           Class = "denim"
	Linen           Class = "linen"
	KnitJersey      Class = "knit-jersey"
	Fleece          Class = "fleece"
	PolyesterLining Class = "polyester-lining"
	// Other: only the physical bounds apply (for fabrics no class fits).
	Other Class = "other"
)

// Value is one number of a fabric file with its unit and its provenance.
// After loading, Value is in the canonical Kawabata unit named by Unit (a file
// may use another accepted unit; it is converted), and SI holds the same
// quantity in SIUnit.
type Value struct {
	Value  float64 `toml:"value" json:"value"`
	Unit   string  `toml:"unit" json:"unit"`
	SI     float64 `toml:"si" json:"si"`
	SIUnit string  `toml:"-" json:"si_unit"`
	Source string  `toml:"source" json:"source"`
	Table  string  `toml:"table" json:"table,omitempty"`
	Status Status  `toml:"status" json:"status"`
	Note   string  `toml:"note" json:"note,omitempty"`
}

// Setting is one instrument setting (a test condition, not a result): the
// maximum load of the tensile test, the shear tension, and so on. Settings
// carry no provenance of their own: they are the conditions under which the
// values' sources measured.
type Setting struct {
	Value  float64 `toml:"value" json:"value"`
	Unit   string  `toml:"unit" json:"unit"`
	SI     float64 `toml:"-" json:"si"`
	SIUnit string  `toml:"-" json:"si_unit"`
}

// Source is one entry of the file's [sources] table; values refer to it by
// its key.
type Source struct {
	// Kind is "publication", "laboratory" or "class-typical".
	Kind     string `toml:"kind" json:"kind"`
	Citation string `toml:"citation" json:"citation"`
	DOI      string `toml:"doi" json:"doi,omitempty"`
	URL      string `toml:"url" json:"url,omitempty"`
	Licence  string `toml:"licence" json:"licence"`
	Note     string `toml:"note" json:"note,omitempty"`
}

// Fabric is one fabric file, loaded and validated: every required value is
// present, in range, consistent with the KES identities, in canonical units
// with SI beside it, and traced to a source.
type Fabric struct {
	Format      int               `toml:"format"`
	Name        string            `toml:"name"`
	Title       string            `toml:"title"`
	Class       Class             `toml:"class"`
	Fibre       string            `toml:"fibre"`
	Notes       string            `toml:"notes"`
	Sources     map[string]Source `toml:"sources"`
	Weave       Weave             `toml:"weave"`
	Render      Render            `toml:"render"`
	Mass        Mass              `toml:"mass"`
	Tensile     Tensile           `toml:"tensile"`
	Shear       Shear             `toml:"shear"`
	Bending     Bending           `toml:"bending"`
	Compression Compression       `toml:"compression"`
	Surface     Surface           `toml:"surface"`
	Skin        *Skin             `toml:"skin"`
	Curves      []Curve           `toml:"curves"`

	// File is where the fabric was loaded from ("builtin:NAME" for the
	// embedded library).
	File string `toml:"-"`

	// fromMean lists the direction groups ("tensile.warp", ...) that loading
	// filled with copies of the file's mean values.
	fromMean []string
}

// Weave is the construction. For knits, EndsPerCm holds wales per cm and
// PicksPerCm courses per cm.
type Weave struct {
	// Type is one of weaveTypes: plain, twill, satin, crepe, jersey, rib,
	// interlock, fleece, pile, other.
	Type       string `toml:"type"`
	Repeat     string `toml:"repeat"` // e.g. "3/1 Z" for a twill, free text
	EndsPerCm  *Value `toml:"ends_per_cm"`
	PicksPerCm *Value `toml:"picks_per_cm"`
	WarpCount  *Value `toml:"warp_count"` // optional
	WeftCount  *Value `toml:"weft_count"` // optional
}

// Render holds the yarn colours the view draws, as "#rrggbb" (sRGB).
type Render struct {
	WarpColour string `toml:"warp_colour"`
	WeftColour string `toml:"weft_colour"`
}

// Mass holds W, the mass per unit area.
type Mass struct {
	W *Value `toml:"W"`
}

// Tensile holds the KES-FB1 tensile test: its setting and the values per
// direction. A file gives Warp and Weft, or only Mean (then Warp and Weft are
// copies of it after loading). Bias is optional.
type Tensile struct {
	MaxLoad     *Setting       `toml:"max_load"`    // F_m, required (500 gf/cm standard, 50 gf/cm for knits)
	Sensitivity string         `toml:"sensitivity"` // amplifier setting as printed on the instrument, e.g. "2x5"
	Warp        *TensileValues `toml:"warp"`
	Weft        *TensileValues `toml:"weft"`
	Bias        *TensileValues `toml:"bias"`
	Mean        *TensileValues `toml:"mean"`
}

// TensileValues are the four tensile results of one direction.
type TensileValues struct {
	EMT *Value `toml:"EMT"` // strain at F_m [%]
	LT  *Value `toml:"LT"`  // linearity [1]
	WT  *Value `toml:"WT"`  // tensile energy [gf·cm/cm²]
	RT  *Value `toml:"RT"`  // resilience [%]
}

// Shear holds the KES-FB1 shear test.
type Shear struct {
	Tension     *Setting     `toml:"tension"`   // default 10 gf/cm
	MaxAngle    *Setting     `toml:"max_angle"` // default 8 deg
	Sensitivity string       `toml:"sensitivity"`
	Warp        *ShearValues `toml:"warp"`
	Weft        *ShearValues `toml:"weft"`
	Mean        *ShearValues `toml:"mean"`
}

// ShearValues are the shear results of one direction.
type ShearValues struct {
	G      *Value `toml:"G"`    // shear stiffness [gf/(cm·deg)], slope over 0.5-5°
	TwoHG  *Value `toml:"2HG"`  // hysteresis width at 0.5° [gf/cm]
	TwoHG5 *Value `toml:"2HG5"` // hysteresis width at 5° [gf/cm]
}

// Bending holds the KES-FB2 pure-bending test.
type Bending struct {
	MaxCurvature *Setting       `toml:"max_curvature"` // default 2.5 1/cm
	Sensitivity  string         `toml:"sensitivity"`
	Warp         *BendingValues `toml:"warp"`
	Weft         *BendingValues `toml:"weft"`
	Mean         *BendingValues `toml:"mean"`
}

// BendingValues are the bending results of one direction. KES "warp"
// bending bends the warp yarns (the specimen's long side along the warp).
type BendingValues struct {
	B     *Value `toml:"B"`   // bending rigidity [gf·cm²/cm], slope over K = 0.5-1.5 1/cm
	TwoHB *Value `toml:"2HB"` // hysteresis width at K = 1 1/cm [gf·cm/cm]
}

// Compression holds the KES-FB3 compression test (no direction).
type Compression struct {
	MaxPressure *Setting `toml:"max_pressure"` // P_m, default 50 gf/cm²
	Area        *Setting `toml:"area"`         // plate area, default 2 cm²
	Sensitivity string   `toml:"sensitivity"`
	LC          *Value   `toml:"LC"` // linearity [1]
	WC          *Value   `toml:"WC"` // compression energy [gf·cm/cm²]
	RC          *Value   `toml:"RC"` // resilience [%]
	T0          *Value   `toml:"T0"` // thickness at 0.5 gf/cm² [mm]
	TM          *Value   `toml:"TM"` // thickness at P_m [mm]
}

// Surface holds the KES-FB4 surface test.
type Surface struct {
	FrictionLoad  *Setting       `toml:"friction_load"`  // default 50 gf (10 piano wires Ø0.5 mm)
	RoughnessLoad *Setting       `toml:"roughness_load"` // default 10 gf (one wire Ø0.5 mm)
	Sensitivity   string         `toml:"sensitivity"`
	Warp          *SurfaceValues `toml:"warp"`
	Weft          *SurfaceValues `toml:"weft"`
	Mean          *SurfaceValues `toml:"mean"`
}

// SurfaceValues are the surface results of one stroke direction.
type SurfaceValues struct {
	MIU *Value `toml:"MIU"` // mean friction coefficient [1]
	MMD *Value `toml:"MMD"` // mean deviation of MIU [1]
	SMD *Value `toml:"SMD"` // geometrical roughness [µm]
}

// Skin is a skin-on-fabric friction measurement, when one exists. KES MIU is
// steel wire on fabric; skin friction differs and depends on moisture.
type Skin struct {
	Mu         *Value   `toml:"mu"`          // kinetic friction coefficient [1]
	NormalLoad *Setting `toml:"normal_load"` // normal load of the measurement
	Conditions string   `toml:"conditions"`  // finger, moisture, speed, as free text
}

// Curve is one raw KES curve as a list of points (x, y) in recorded order
// (loading, then unloading). Units per test: tensile strain % vs force per
// width gf/cm; shear angle deg vs gf/cm; bending curvature 1/cm vs moment
// gf·cm/cm; compression thickness mm vs pressure gf/cm².
type Curve struct {
	Test      string       `toml:"test"`      // tensile, shear, bending, compression
	Direction string       `toml:"direction"` // warp, weft, bias, mean ("" for compression)
	XUnit     string       `toml:"x_unit"`
	YUnit     string       `toml:"y_unit"`
	Points    [][2]float64 `toml:"points"`
	Source    string       `toml:"source"`
	Table     string       `toml:"table"` // figure or data-file reference
	Status    Status       `toml:"status"`
	Note      string       `toml:"note"`

	// SI is Points in SI units (strain 1 vs N/m, rad vs N/m, 1/m vs N,
	// m vs Pa), filled on load.
	SI []Point `toml:"-"`
}

// Point is one point of a curve in SI units.
type Point struct {
	X, Y float64
}

// Direction selects warp, weft or bias values.
type Direction int

const (
	Warp Direction = iota
	Weft
	Bias // tensile only, and only when the file gives it
)

func (d Direction) String() string {
	switch d {
	case Warp:
		return "warp"
	case Weft:
		return "weft"
	case Bias:
		return "bias"
	}
	return "direction?"
}
