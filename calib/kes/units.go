package kes

import (
	"math"
	"strings"
)

// StandardGravity is g_n [m/s²]: one gram-force is 1e-3 kg × g_n = 9.80665e-3 N
// exactly (3rd CGPM 1901; BIPM SI Brochure, 9th ed., 2019). Every Kawabata
// unit below converts to SI through it.
const StandardGravity = 9.80665

// gramForce is one gram-force in newtons.
const gramForce = 1e-3 * StandardGravity

// kind is the physical dimension of one fabric-file quantity. Each kind has one
// canonical Kawabata (KES-F) unit, a few accepted spellings or alternative
// units, and one SI unit.
type kind int

const (
	kindPercent        kind = iota // EMT, RT, RC
	kindRatio                      // LT, LC, MIU, MMD, skin friction
	kindEnergyPerArea              // WT, WC
	kindForcePerWidth              // 2HG, 2HG5, maximum load, shear tension
	kindShearStiffness             // G
	kindBendRigidity               // B
	kindBendMoment                 // 2HB (moment per unit width)
	kindThickness                  // T0, TM
	kindRoughness                  // SMD
	kindArealMass                  // W
	kindPressure                   // compression maximum pressure
	kindAngle                      // shear maximum angle
	kindCurvature                  // bending maximum curvature
	kindLoad                       // FB4 contactor loads
	kindArea                       // FB3 plate area
	kindThreadDensity              // ends and picks (wales and courses) per cm
	kindYarnCount                  // linear density of a yarn
	kindForce                      // skin-friction normal load
)

// unitSpec is one kind's units. kes is the canonical Kawabata unit as it is
// printed; si and siFactor convert a value in the canonical unit to SI;
// accept maps every accepted (normalised) spelling to the factor that turns a
// value written in it into the canonical unit.
type unitSpec struct {
	kes      string
	si       string
	siFactor float64
	accept   map[string]float64
}

// units holds every conversion the package makes: the KES units of
// Kawabata's instruments and their SI equivalents, each factor derived from
// 1 gf = 9.80665e-3 N (above), 1 cm = 1e-2 m and 1 deg = π/180 rad
// (FORMAT.md, "Conversions to SI"); tex = g/km (ISO 1144).
var units = map[kind]unitSpec{
	kindPercent: {kes: "%", si: "1", siFactor: 0.01,
		accept: map[string]float64{"%": 1}},
	kindRatio: {kes: "1", si: "1", siFactor: 1,
		accept: map[string]float64{"": 1, "1": 1, "-": 1}},
	// gf·cm/cm² = gf/cm = 9.80665e-3 N / 1e-2 m = 0.980665 J/m².
	kindEnergyPerArea: {kes: "gf·cm/cm²", si: "J/m²", siFactor: gramForce / 1e-2,
		accept: map[string]float64{"gf.cm/cm2": 1, "gfcm/cm2": 1, "j/m2": 1e-2 / gramForce}},
	// gf/cm = 0.980665 N/m; 500 gf/cm = 490.33 N/m.
	kindForcePerWidth: {kes: "gf/cm", si: "N/m", siFactor: gramForce / 1e-2,
		accept: map[string]float64{"gf/cm": 1, "n/m": 1e-2 / gramForce}},
	// gf/(cm·deg) = 0.980665 N/m per degree = 56.188 N/m per radian.
	kindShearStiffness: {kes: "gf/(cm·deg)", si: "N/(m·rad)", siFactor: gramForce / 1e-2 * 180 / math.Pi,
		accept: map[string]float64{"gf/cm.deg": 1, "gf/cm/deg": 1}},
	// gf·cm²/cm = 9.80665e-3 N × 1e-4 m² / 1e-2 m = 9.80665e-5 N·m (N·m²/m).
	kindBendRigidity: {kes: "gf·cm²/cm", si: "N·m", siFactor: gramForce * 1e-4 / 1e-2,
		accept: map[string]float64{"gf.cm2/cm": 1, "n.m": 1e-2 / (gramForce * 1e-4), "un.m": 1e-6 * 1e-2 / (gramForce * 1e-4)}},
	// gf·cm/cm = 9.80665e-3 N (N·m/m).
	kindBendMoment: {kes: "gf·cm/cm", si: "N", siFactor: gramForce,
		accept: map[string]float64{"gf.cm/cm": 1}},
	kindThickness: {kes: "mm", si: "m", siFactor: 1e-3,
		accept: map[string]float64{"mm": 1, "m": 1e3, "um": 1e-3}},
	kindRoughness: {kes: "µm", si: "m", siFactor: 1e-6,
		accept: map[string]float64{"um": 1, "micron": 1, "mm": 1e3}},
	// mg/cm² = 1e-6 kg / 1e-4 m² = 0.01 kg/m² = 10 g/m².
	kindArealMass: {kes: "mg/cm²", si: "kg/m²", siFactor: 1e-2,
		accept: map[string]float64{"mg/cm2": 1, "g/m2": 0.1, "gsm": 0.1, "kg/m2": 100}},
	// gf/cm² = 9.80665e-3 N / 1e-4 m² = 98.0665 Pa.
	kindPressure: {kes: "gf/cm²", si: "Pa", siFactor: gramForce / 1e-4,
		accept: map[string]float64{"gf/cm2": 1, "pa": 1e-4 / gramForce, "kpa": 1e3 * 1e-4 / gramForce}},
	kindAngle: {kes: "deg", si: "rad", siFactor: math.Pi / 180,
		accept: map[string]float64{"deg": 1}},
	kindCurvature: {kes: "1/cm", si: "1/m", siFactor: 100,
		accept: map[string]float64{"1/cm": 1, "cm-1": 1, "/cm": 1}},
	kindLoad: {kes: "gf", si: "N", siFactor: gramForce,
		accept: map[string]float64{"gf": 1, "n": 1 / gramForce}},
	kindArea: {kes: "cm²", si: "m²", siFactor: 1e-4,
		accept: map[string]float64{"cm2": 1}},
	kindThreadDensity: {kes: "1/cm", si: "1/m", siFactor: 100,
		accept: map[string]float64{"1/cm": 1, "/cm": 1, "cm-1": 1, "ends/cm": 1, "picks/cm": 1, "wales/cm": 1, "courses/cm": 1}},
	// tex = g/km = 1e-6 kg/m; dtex = 0.1 tex; denier = g/9 km = tex/9.
	kindYarnCount: {kes: "tex", si: "kg/m", siFactor: 1e-6,
		accept: map[string]float64{"tex": 1, "dtex": 0.1, "den": 1.0 / 9, "denier": 1.0 / 9}},
	kindForce: {kes: "N", si: "N", siFactor: 1,
		accept: map[string]float64{"n": 1, "gf": gramForce}},
}

// normUnit folds the spellings of a unit people write into one key: no
// spaces, '·', '⋅' and '*' as '.', superscript or ^2 as 2, '°' as deg, µ as u,
// parentheses dropped, lower case.
func normUnit(s string) string {
	r := strings.NewReplacer(" ", "", "\t", "", "·", ".", "⋅", ".", "*", ".", "²", "2", "^2", "2",
		"°", "deg", "µ", "u", "μ", "u", "(", "", ")", "", "−", "-")
	return strings.ToLower(r.Replace(s))
}

// toKES returns the factor that converts a value written in unit u to the
// canonical unit of k, and whether u is accepted for k.
func toKES(k kind, u string) (float64, bool) {
	f, ok := units[k].accept[normUnit(u)]
	return f, ok
}

// acceptedUnits lists the canonical unit of k first, for error messages.
func acceptedUnits(k kind) string {
	spec := units[k]
	if k == kindRatio {
		return `"" or "1"`
	}
	return `"` + spec.kes + `"`
}
