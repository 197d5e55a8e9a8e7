package tactile

import (
	"slices"
	"sync"
	"testing"
)

// A surface whose shape was projected before takes the kept tables, equal
// bit for bit to projecting again; a fabric's surface with its roughness
// scaled shares its shape's; the cache holds at most projCacheSize shapes,
// the least recently used leaving first; and surfaces built at once from
// many goroutines agree.
func TestProjectionShared(t *testing.T) {
	twill := SurfaceParams{SMD: 6e-6, MIU: 0.22, MMD: 0.02, Weave: Twill, Repeat: 3, Float: 2,
		WarpSpacing: 0.3e-3, WeftSpacing: 0.45e-3, GridN: 128}
	a, err := NewSurface(twill, 1)
	if err != nil {
		t.Fatal(err)
	}
	fresh := &Surface{shape: a.shape}
	fresh.project()
	if fresh.nk != a.nk || fresh.dk1 != a.dk1 || !slices.Equal(fresh.proj, a.proj) || !slices.Equal(fresh.bink, a.bink) || !slices.Equal(fresh.log2k, a.log2k) {
		t.Fatal("the kept projection differs from projecting again")
	}
	rough := twill
	rough.SMD *= 3
	b, err := NewSurface(rough, 2)
	if err != nil {
		t.Fatal(err)
	}
	if &b.proj[0] != &a.proj[0] {
		t.Error("three times the roughness: the same shape projected again")
	}
	if b.sigmaH != 3*a.sigmaH {
		t.Errorf("σ_h %g, want 3 × %g", b.sigmaH, a.sigmaH)
	}

	// projCacheSize other weaves' spacings push twill's shape out.
	for i := range projCacheSize {
		p := twill
		p.WarpSpacing = 0.2e-3 + float64(i)*0.01e-3
		if _, err := NewSurface(p, 1); err != nil {
			t.Fatal(err)
		}
	}
	projCache.Lock()
	n := len(projCache.entries)
	projCache.Unlock()
	if n != projCacheSize {
		t.Errorf("%d shapes kept, want %d", n, projCacheSize)
	}
	c, err := NewSurface(twill, 1)
	if err != nil {
		t.Fatal(err)
	}
	if &c.proj[0] == &a.proj[0] || !slices.Equal(c.proj, a.proj) {
		t.Error("twill's shape, pushed out, was not projected again to the same tables")
	}

	var wg sync.WaitGroup
	got := make([]*Surface, 4)
	for i := range got {
		wg.Go(func() {
			p := twill
			p.Weave = Plain
			s, err := NewSurface(p, uint64(i))
			if err != nil {
				t.Error(err)
			}
			got[i] = s
		})
	}
	wg.Wait()
	for _, s := range got[1:] {
		if s == nil || got[0] == nil || !slices.Equal(s.proj, got[0].proj) {
			t.Fatal("surfaces of one shape built at once differ")
		}
	}
}
