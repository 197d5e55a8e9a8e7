package sim

// constraints are the nodes the solve does not leave free, filtered out
// of its search space (Baraff & Witkin's filtered CG): pinned nodes, whose
// position is prescribed, and roller nodes, whose position is prescribed
// along one direction only (the fidelity tests' tensile grips).
type constraints struct {
	pinned []bool
	free   []bool
	fixed  []int32      // the nodes not free, for the per-vector passes over them
	proj   [][3]float64 // constraint direction of roller nodes; zero for the others
	target []float64    // prescribed positions of the constrained nodes
	// gen counts the changes of which nodes are free, so that what
	// depends on it (the coarse level's plan) knows when to renew.
	gen uint64
}

func (s *constraints) init(n int) {
	s.pinned, s.free = make([]bool, n), make([]bool, n)
	s.proj, s.target = make([][3]float64, n), make([]float64, 3*n)
	s.fixed = s.fixed[:0]
	for k := range n {
		s.free[k] = true
	}
}

// pin clamps node k at its position in x.
func (s *constraints) pin(k int32, x []float64) {
	s.pinned[k] = true
	s.hold(k, x)
}

// hold marks node k as not free, its target its position in x.
func (s *constraints) hold(k int32, x []float64) {
	s.gen++
	if s.free[k] {
		s.free[k] = false
		s.fixed = append(s.fixed, k)
	}
	copy(s.target[3*k:3*k+3], x[3*k:3*k+3])
}

// rollers reports whether any node is a roller.
func (s *constraints) rollers() bool {
	for _, d := range s.proj {
		if d != ([3]float64{}) {
			return true
		}
	}
	return false
}

// filter zeroes the constrained components of a vector.
func (s *constraints) filter(p []float64) {
	for _, n := range s.fixed {
		k := int(n)
		if s.pinned[k] {
			p[3*k], p[3*k+1], p[3*k+2] = 0, 0, 0
			continue
		}
		dir := s.proj[k]
		d := p[3*k]*dir[0] + p[3*k+1]*dir[1] + p[3*k+2]*dir[2]
		p[3*k] -= d * dir[0]
		p[3*k+1] -= d * dir[1]
		p[3*k+2] -= d * dir[2]
	}
}

// prescribe sets the constrained components of dv to the velocity
// changes the constraints prescribe for a displacement base + ah·dv over
// the step from x, and zeroes them in b. It reports whether every
// prescribed component is zero (the constraints hold their nodes still).
func (s *constraints) prescribe(dv, b, x, base []float64, ah float64) (still bool) {
	s.filter(b)
	still = true
	for _, n := range s.fixed {
		k := int(n)
		var need [3]float64
		for q := range 3 {
			need[q] = (s.target[3*k+q] - x[3*k+q] - base[3*k+q]) / ah
		}
		if s.pinned[k] {
			copy(dv[3*k:3*k+3], need[:])
			still = still && need == [3]float64{}
			continue
		}
		dir := s.proj[k]
		d := dv[3*k]*dir[0] + dv[3*k+1]*dir[1] + dv[3*k+2]*dir[2]
		t := dot3(need, dir)
		for q := range 3 {
			dv[3*k+q] += (t - d) * dir[q]
		}
		still = still && t == 0
	}
	return still
}
