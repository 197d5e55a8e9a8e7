package tactile

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func randomHeightMap(nu, nv int, dx, sigma float64, seed uint64) HeightMap {
	rng := rand.New(rand.NewPCG(seed, 2))
	hm := HeightMap{Nu: nu, Nv: nv, Dx: dx, Z: make([]float64, nu*nv)}
	for i := range hm.Z {
		hm.Z[i] = sigma * rng.NormFloat64()
	}
	return hm
}

func TestHeightMapRoundTrip(t *testing.T) {
	hm := randomHeightMap(20, 17, 25e-6, 3e-6, 1)
	var buf bytes.Buffer
	if err := WriteHeightMap(&buf, hm); err != nil {
		t.Fatal(err)
	}
	got, err := ReadHeightMap(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Nu != hm.Nu || got.Nv != hm.Nv || math.Abs(got.Dx/hm.Dx-1) > 1e-15 {
		t.Fatalf("read %d x %d at %g, wrote %d x %d at %g", got.Nu, got.Nv, got.Dx, hm.Nu, hm.Nv, hm.Dx)
	}
	for i := range hm.Z {
		if math.Abs(got.Z[i]-hm.Z[i]) > 1e-15*math.Abs(hm.Z[i])+1e-22 {
			t.Fatalf("sample %d: read %g, wrote %g", i, got.Z[i], hm.Z[i])
		}
	}
}

func TestReadHeightMapErrors(t *testing.T) {
	row := strings.Repeat("0.5 ", 16) + "\n"
	rows := strings.Repeat(row, 16)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"no spacing", rows, "dx_um"},
		{"bad spacing", "dx_um abc\n" + rows, "spacing"},
		{"negative spacing", "dx_um -3\n" + rows, "spacing"},
		{"short row", "dx_um 20\n" + rows + "1 2 3\n", "line 18: 3 samples"},
		{"bad value", "dx_um 20\n" + strings.Replace(rows, "0.5", "x", 1), "line 2, sample 1"},
		{"NaN", "dx_um 20\n" + strings.Replace(rows, "0.5", "NaN", 1), "not a finite"},
		{"too few rows", "dx_um 20\n" + strings.Repeat(row, 3), "3 rows"},
		{"too few columns", "dx_um 20\n1 2 3\n", "samples per row"},
		{"empty", "", "dx_um"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadHeightMap(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "tactile: ") {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	ok := "# a comment\n\ndx_um 20\n" + strings.ReplaceAll(rows, " ", ",")
	if hm, err := ReadHeightMap(strings.NewReader(ok)); err != nil || hm.Nu != 16 || hm.Nv != 16 || hm.Z[0] != 0.5e-6 {
		t.Errorf("comma-separated map with comments: %v", err)
	}
}

func FuzzReadHeightMap(f *testing.F) {
	row := strings.Repeat("1.5 -2 ", 8) + "\n"
	f.Add([]byte("dx_um 20\n" + strings.Repeat(row, 16)))
	f.Add([]byte("# c\ndx_um 1e1\n" + strings.Repeat(strings.ReplaceAll(row, " ", ","), 16)))
	f.Add([]byte("dx_um 20\n1 2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		hm, err := ReadHeightMap(bytes.NewReader(b))
		if err != nil {
			return
		}
		if err := hm.validate(); err != nil {
			t.Fatalf("ReadHeightMap returned a map that does not validate: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteHeightMap(&buf, hm); err != nil {
			t.Fatal(err)
		}
		again, err := ReadHeightMap(&buf)
		if err != nil || again.Nu != hm.Nu || again.Nv != hm.Nv {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// Welch's estimate sums to the height variance, and a white map has a
// flat spectrum.
func TestWelchSpectrum(t *testing.T) {
	hm := randomHeightMap(700, 300, 20e-6, 4e-6, 9)
	// A tilt the detrend must remove.
	for j := range hm.Nv {
		for i := range hm.Nu {
			hm.Z[j*hm.Nu+i] += 1e-6*float64(i) - 2e-6*float64(j)
		}
	}
	sp, err := WelchSpectrum(hm)
	if err != nil {
		t.Fatal(err)
	}
	if sp.Nu != 512 || sp.Nv != 300 {
		t.Errorf("Welch tile %d x %d, want 512 x 300", sp.Nu, sp.Nv)
	}
	var sum, inner, outer float64
	for j := range sp.Nv {
		for i := range sp.Nu {
			p := sp.P[j*sp.Nu+i]
			sum += p
			if abs(i-sp.Nu/2) < sp.Nu/4 && abs(j-sp.Nv/2) < sp.Nv/4 {
				inner += p
			} else {
				outer += p
			}
		}
	}
	if math.Abs(sum/16e-12-1) > 0.05 {
		t.Errorf("spectrum sums to %.4g m², want the variance 1.6e-11 ± 5 %%", sum)
	}
	if r := inner / sum; math.Abs(r-0.25) > 0.02 {
		t.Errorf("white noise: inner quarter of k-space holds %.3f of the variance, want 0.25", r)
	}
	small := randomHeightMap(128, 96, 20e-6, 4e-6, 10)
	s, err := NewSurfaceFromHeightMap(small, SurfaceParams{UniformMap: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The band limit to the inscribed circle keeps π/4 of a white
	// spectrum (both axes have the same Nyquist frequency).
	if got, want := s.HeightStd(0), 4e-6*math.Sqrt(math.Pi/4); math.Abs(got/want-1) > 0.05 {
		t.Errorf("surface σ %.4g m, want %.4g m", got, want)
	}
	bad := hm
	bad.Z = append([]float64(nil), hm.Z...)
	bad.Z[5] = math.Inf(1)
	if _, err := WelchSpectrum(bad); err == nil || !strings.Contains(err.Error(), "sample 5") {
		t.Errorf("infinite sample: %v", err)
	}
}
