package experiment

import "testing"

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
