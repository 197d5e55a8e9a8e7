package experiment

import (
	"math"
	"testing"
)

// Fabrics of equal KES value are not ordered among themselves; any other
// pair out of order is not monotone.
func TestMonotoneTies(t *testing.T) {
	fc := func(kc ...float64) []FabricCue {
		var fs []FabricCue
		for i := 0; i < len(kc); i += 2 {
			fs = append(fs, FabricCue{KES: kc[i], Cue: kc[i+1]})
		}
		return fs
	}
	for _, c := range []struct {
		name string
		fs   []FabricCue
		sign float64
		want bool
	}{
		{"rising", fc(1, 1, 2, 2, 3, 3), 1, true},
		{"tie swapped", fc(1, 1, 2, 2.5, 2, 2, 3, 3), 1, true},
		{"tie below its neighbour", fc(1, 1, 2, 2.5, 2, 0.5, 3, 3), 1, false},
		{"tie above the next", fc(1, 1, 2, 3.5, 2, 2, 3, 3), 1, false},
		{"falling, inverse", fc(1, 3, 2, 2, 3, 1), -1, true},
		{"rising, inverse", fc(1, 1, 2, 2), -1, false},
		{"equal cues", fc(1, 1, 2, 1), 1, false},
		{"one fabric", fc(1, 1), 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := monotone(c.fs, c.sign); got != c.want {
				t.Errorf("monotone %v, want %v", got, c.want)
			}
		})
	}
}

// A pair out of KES order counts as reversed only beyond twice the
// standard error of the difference of its means.
func TestReversals(t *testing.T) {
	fab := func(name string, kes float64, cues ...float64) FabricCue {
		f := FabricCue{Fabric: name, KES: kes, Cues: cues}
		for _, c := range cues {
			f.Cue += c / float64(len(cues))
		}
		for _, c := range cues {
			f.CueSD += (c - f.Cue) * (c - f.Cue) / float64(len(cues)-1)
		}
		f.CueSD = math.Sqrt(f.CueSD)
		return f
	}
	// a: mean 1.0; b: mean 0.9 or 0.7; each four cues of variance 0.02/3,
	// so the difference's standard error is √(2·0.02/3/4) = 0.0577.
	a := fab("a", 1, 0.9, 1.0, 1.0, 1.1)
	within := fab("b", 2, 0.8, 0.9, 0.9, 1.0)
	beyond := fab("b", 2, 0.6, 0.7, 0.7, 0.8)
	for _, c := range []struct {
		name string
		fs   []FabricCue
		sign float64
		want int
	}{
		{"rising", []FabricCue{a, fab("b", 2, 1.1, 1.2, 1.2, 1.3)}, 1, 0},
		{"reversed within the scatter", []FabricCue{a, within}, 1, 0},
		{"reversed beyond it", []FabricCue{a, beyond}, 1, 1},
		{"inverse: falling is the order", []FabricCue{a, beyond}, -1, 0},
		{"equal KES values are not ordered", []FabricCue{a, fab("b", 1, 0.6, 0.7, 0.7, 0.8)}, 1, 0},
		{"no scatter: any fall", []FabricCue{{Fabric: "a", KES: 1, Cue: 1}, {Fabric: "b", KES: 2, Cue: 0.99}}, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs := reversals(c.fs, c.sign)
			if len(rs) != c.want {
				t.Fatalf("%d reversals %+v, want %d", len(rs), rs, c.want)
			}
			for _, r := range rs {
				if !(r.Difference < -2*r.SE) || r.Lower != "a" || r.Higher != "b" {
					t.Errorf("reversal %+v", r)
				}
			}
		})
	}
	want := math.Sqrt(0.02 / 3 / 2)
	if d := reversals([]FabricCue{a, beyond}, 1)[0]; math.Abs(d.Difference+0.3) > 1e-12 || math.Abs(d.SE-want) > 1e-12 {
		t.Errorf("difference %g ± %g, want -0.3 ± %g", d.Difference, d.SE, want)
	}
}
