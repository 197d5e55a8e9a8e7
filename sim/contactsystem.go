package sim

// The pads' contacts in the step's system: their Jacobians, linearised
// at the start of the step (padContact.linearize), enter the operator
// A = M - cD·D - cK·K as -cK·J, assembled or applied matrix-free.

// assemble adds -cK·J of every contact to the block matrix.
func (s *padContact) assemble(a *bcsr, cK float64) {
	for k := range s.f {
		for i := range s.f[k].lin {
			cp := &s.f[k].lin[i]
			blk := &a.triBlk[cp.tri]
			for r := range 3 {
				for q := range 3 {
					a.addBlock(blk[3*r+q], -cK*cp.w[r]*cp.w[q], &cp.j)
				}
			}
		}
	}
}

// addDiag adds the diagonal blocks of -cK·J to d.
func (s *padContact) addDiag(d [][3][3]float64, cK float64) {
	for k := range s.f {
		for i := range s.f[k].lin {
			cp := &s.f[k].lin[i]
			for r, n := range s.c.m.tris[cp.tri].n {
				addTo33(&d[n], -cK*cp.w[r]*cp.w[r], &cp.j)
			}
		}
	}
}

// mulAdd adds c·J·p of every contact to dst.
func (s *padContact) mulAdd(dst, p []float64, c float64) {
	for k := range s.f {
		for i := range s.f[k].lin {
			cp := &s.f[k].lin[i]
			q := s.probes.pos(cp, p)
			var jq [3]float64
			mul33(jq[:], &cp.j, q[:])
			s.probes.scatter(cp, dst, scale3(c, jq))
		}
	}
}
