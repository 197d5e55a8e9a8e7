package tactile

import (
	"crypto/sha256"
	"encoding/binary"
	"sync"
)

// The projection of a spectrum onto the stroke directions is most of what
// NewSurface costs (about half a second of CPU at the default 512² grid),
// and a session builds the same fabric's surface again and again: each
// rig builds its fabric's, an experiment builds each fabric of a set, and
// the surfaces of one fabric with its roughness scaled share their shape.
// So the tables of the last projCacheSize shapes projected are kept and
// shared, read only, by every Surface built from an equal shape.
const projCacheSize = 8

// projection is one shape's projection tables, as Surface holds them.
type projection struct {
	key         [sha256.Size]byte // of the shape: grid, bin sizes and P
	nk          int
	dk1         float64
	bink, log2k []float64
	proj        []float64
}

var projCache struct {
	sync.Mutex
	entries []*projection // the most recently used last
}

// shapeKey returns a digest of every number the projection depends on.
func shapeKey(sp *Spectrum) [sha256.Size]byte {
	h := sha256.New()
	binary.Write(h, binary.LittleEndian, [2]int64{int64(sp.Nu), int64(sp.Nv)})
	binary.Write(h, binary.LittleEndian, [2]float64{sp.Dku, sp.Dkv})
	binary.Write(h, binary.LittleEndian, sp.P)
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// projectShared fills s's projection tables from the cache, or projects
// s's shape and keeps the result.
func (s *Surface) projectShared() {
	key := shapeKey(&s.shape)
	projCache.Lock()
	for i, e := range projCache.entries {
		if e.key == key {
			n := len(projCache.entries)
			copy(projCache.entries[i:], projCache.entries[i+1:])
			projCache.entries[n-1] = e
			projCache.Unlock()
			s.nk, s.dk1, s.bink, s.log2k, s.proj = e.nk, e.dk1, e.bink, e.log2k, e.proj
			return
		}
	}
	projCache.Unlock()
	s.project()
	e := &projection{key: key, nk: s.nk, dk1: s.dk1, bink: s.bink, log2k: s.log2k, proj: s.proj}
	projCache.Lock()
	defer projCache.Unlock()
	for _, o := range projCache.entries {
		if o.key == key {
			return // built at the same time by another caller
		}
	}
	if len(projCache.entries) == projCacheSize {
		projCache.entries = append(projCache.entries[:0], projCache.entries[1:]...)
	}
	projCache.entries = append(projCache.entries, e)
}
