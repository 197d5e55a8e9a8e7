// Package sim owns the cloth: the mesh, the fabric's tensile and bending
// forces and their Jacobians, the implicit integrator and its conjugate
// gradient solver, finger contact, and what a step publishes (the per-finger
// LocalModel and ContactPatch, and snapshots for rendering).
//
// It never touches a device, a window, the wall clock or the environment:
// time is an argument, and every input arrives as a value. Step allocates
// nothing. A step runs on its caller's goroutine; with SetParallel it
// offers half of its element pass and of each matrix product to another
// goroutine that calls Assist meanwhile, bit for bit alike.
//
// # Conventions
//
// SI units throughout (m, s, kg, N, Pa, rad). World frame: metres, y up,
// gravity along -y. Fabric frame: (u, v) in metres on the undeformed cloth,
// u along the weft, v along the warp. Material (material.go) documents the
// units of every fabric parameter and its Kawabata counterpart.
//
// # Model
//
// The mesh is a rectangular grid cut into triangles along alternating
// diagonals, its lines evenly spaced or packed round the pinch point
// (Refinement: elements smaller than the grip make the pinch force
// independent of the resolution; Cloth.Regrade moves the packing, and
// Refinement.Follow has each step move it to an approaching pad). In-plane, each triangle is Volino's accurate element (HAPTEX
// tutorial eq. 6-11): weft, warp and diagonal-length shear strains, three
// measured strain-stress curves (monotone cubic, linear beyond the data),
// optional Poisson coupling and Kelvin-Voigt viscosity. Its forces and
// Jacobians are the exact derivatives of the element energy (the printed
// eq. 11 pairs stresses with the wrong directions), checked against finite
// differences. Bending is Volino's linear bending (eq. 12-21): a bending
// vector from rest-shape coefficients per interior edge, forces -λ·α·R,
// a constant Jacobian, exact conservation of linear and angular momentum;
// see mesh.bendStencils for the grid stencils and the λ that makes the
// discrete energy equal the plate's. Internal friction (Material.Hysteresis,
// Kawabata's hysteresis loops) is an augmented Dahl element per triangle
// and in-plane mode and per weft and warp bending edge (Miguel et al., ACM
// TOG 32(6):212, 2013; dahl.go, hysteresis.go, bendhyst.go), exact within
// a step, so that its work joins the step's potential below; its state
// moves on with each accepted step.
//
// Time integration is the tutorial's generalised Euler and BDF-2 with
// implicitness α (eq. 22-25), each step solved as what it is: the
// minimisation of an incremental potential Φ, by Newton's method with a
// line search on Φ (see integrator; its first iteration is the tutorial's
// single linearised solve). Backward Euler (α = 1) is the default; its Φ
// at the start of a step is the state's total energy, so no step can lift
// the potential energy above it, at any step length (TestDropAndSwing:
// 1 ms to 100 ms, every built-in fabric, both schemes). While a finger pad
// touches the cloth a step makes one Newton iteration (Config.ContactNewton)
// and its line search. After each step a strain limiter clamps every
// triangle's principal strains to Config.StrainLimit (limitStrain).
// The tutorial's claim that BDF-2 is third order at α = 1/√3 does not hold
// for eq. 25; it is second order for α in [1/2, 1] (integrator_test.go).
//
// Node masses are lumped on the dual grid (a quarter of each grid square
// to each corner), so a uniform mesh has uniform masses.
//
// # Solver
//
// Each Newton iteration's system M - α·δt·D - α²·δt²·K is solved by preconditioned CG,
// warm-started from the previous step's Δv scaled to its multiple closest
// to the solution in the A-norm (cg.solve), with the clamped top edge (and
// any other constrained node) filtered out of the search space (Baraff
// and Witkin), an iteration cap, and the residual reported in Stats. The
// right-hand side of an Euler step needs K·v; since the viscous forces are
// exactly D·v, it is one product of the assembled matrix,
// (M·v - cD·D·v - A·v)/cK, instead of a pass over the elements.
//
// Assembled or matrix-free: decided by BenchmarkOperator (the pinched
// showcase cloth). A product of the assembled system matrix costs a
// fraction of one computed on the fly from each element's linearisation
// (HAPTEX's way), and only the assembled matrix allows the two-grid
// preconditioner, which needs its blocks and takes several times fewer CG
// iterations than block Jacobi (the README has the figures). The matrix is
// 3×3 blocks on the triangle adjacency, plus the bending couplings that
// reach further, kept as scalars because the bending Jacobian is a
// multiple of the identity per node pair (operator.go). MatrixFree
// remains available with block Jacobi.
//
// The preconditioner (TwoGrid, the default; preconditioner.go) is a
// two-grid V(1,1) cycle: a symmetric block Gauss-Seidel sweep pair around
// a coarse correction on square aggregates of nodes (translations only,
// 8 × 8 to 16 × 16 of them), whose small banded matrix PᵀAP is factorised
// each step (every 2 ms of simulated time at shorter steps). A stiff membrane defeats block Jacobi,
// whose iterations grow with the grid; the coarse level removes the long
// waves that converge slowest, so the warm-started CG needs only a few
// iterations a step at the default tolerance, 1e-2 (haptex bench sim
// reports them). With a pinched stack, the sweeps are joined by exact
// solves on the nodes its springs join (stackblock.go).
//
// The matrix products and the Gauss-Seidel sweeps go through two kernels,
// the CG's inner products and the coarse level's banded solves through a
// third, an inner product, the coarse level's banded Cholesky
// factorisation through a fourth, column by column (each column updates
// the rows below it, which do not wait for one another), and the rest of
// the solve's vector work (the CG's updates, the coarse level's
// restriction, prolongation and assembly) through kernels of its own
// (kernels.go). On amd64 with AVX2 and FMA they are assembly, one block
// row per vector instruction and four entries of a band row per fused
// multiply-add, with the order of every operation fixed, so all such
// machines compute the same bits (TestKernelsMatchReference and TestDot8
// check the kernels against that order written in Go; the vector kernels
// are the Go code's own operations, bit for bit). Elsewhere plain Go code
// computes them, the same to round-off (TestStepWithoutKernel).
// The element pass adds each triangle's blocks into the matrix as it
// computes its forces, while the element is at hand. It computes in vec
// values (a struct of three floats, which the compiler keeps in registers,
// where a [3]float64 lives in memory), and it computes the blocks of two
// vertices only: a translation stores no energy, so each column of an
// element's blocks sums to zero, which gives the third vertex's.
//
// # Contact
//
// Finger pads are rigid spheres, the fabric a layer of its thickness.
// Contact is resolved on the surface through probes (a fixed barycentric
// subdivision of each triangle; probes.go), penalised by the fabric's
// compression stiffness, with Coulomb friction as anchored springs
// (contact.go); the search for touching probes scans only the grid rows
// whose bounding box comes within reach of a pad, so a pad away from the
// cloth costs only the rows' boxes, computed once per state for both pads.
// The stand's rod is a cylinder the nodes cannot enter (rod.go). After
// each step every finger's force is linearised into a LocalModel
// (coupling.go): its stiffness K is the dynamic Schur complement of the
// step's system with respect to the pad position, approximated by one
// V-cycle per direction (two CG iterations while the pad holds a stack of
// layers), and the contact's drift velocity V lets the 1 kHz
// loop follow a contact that moves with the cloth. A contact the step's
// solve did not include (the cloth ran into a pad during the step) exerted
// no force and gets no LocalModel until a step resolves it.
package sim
