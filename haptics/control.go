package haptics

import (
	"math"

	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/haptics/filter"
	"github.com/haptex/haptex/internal/vec3"
)

// controller is the explicit force controller of one finger (HAPTEX
// tutorial §5.4, after Volpe & Khosla 1993): an outer force loop turns the
// filtered force error into a Cartesian velocity reference, the damped
// least-squares inverse Jacobian turns that into joint speed references,
// and an inner velocity loop per joint turns the filtered speed error into
// a joint torque. Everything is in the device's base frame.
type controller struct {
	cfg *Config
	t   float64 // tick period [s]

	fDes  [3]*filter.Filter // Butterworth on the desired force, per axis
	fMeas [3]*filter.Filter // Butterworth on the measured force, per axis
	fStf  [3]*filter.Filter // Butterworth on the stiffness part of the desired force
	speed [3]*filter.Filter // Butterworth on the encoder-derived joint speed
	cheb  [3]*filter.Filter // Chebyshev I on the joint-speed error

	iF    [3]float64 // force-loop integrator: velocity reference [m/s]
	iV    [3]float64 // velocity-loop integrators [N·m]
	qPrev [3]float64
	have  bool
	qd    [3]float64 // filtered joint speed [rad/s]

	// inject is added to the force error before its filter: the loop-gain
	// measurement's test signal (zero in operation).
	inject [3]float64
	// damping is the passivity controller's damping this tick [N·s/m]:
	// it adds to the admittance's virtual damper 1/K_f.
	damping float64

	// Outputs of the last step, for the record and tests.
	lastErr   [3]float64 // force error before injection
	vRef      [3]float64
	qdRef     [3]float64
	lambda    float64
	gainScale float64
}

func newController(cfg *Config) (*controller, error) {
	d, err := cfg.Filters()
	if err != nil {
		return nil, err
	}
	c := &controller{cfg: cfg, t: cfg.Period.Seconds()}
	for i := range 3 {
		c.fDes[i] = filter.New(d.Reference)
		c.fMeas[i] = filter.New(d.Force)
		c.fStf[i] = filter.New(d.Reference)
		c.speed[i] = filter.New(d.Speed)
		c.cheb[i] = filter.New(d.Velocity)
	}
	return c, nil
}

// reset clears integrators and filter states, with the joints at q.
func (c *controller) reset(q [3]float64) {
	for i := range 3 {
		c.fDes[i].Reset()
		c.fMeas[i].Reset()
		c.fStf[i].Reset()
		c.speed[i].Reset()
		c.cheb[i].Reset()
		c.iF[i], c.iV[i], c.qd[i] = 0, 0, 0
	}
	c.qPrev, c.have = q, true
}

// observe updates the joint-speed estimate from a new encoder sample taken
// dt seconds after the previous one.
func (c *controller) observe(q [3]float64, dt float64) {
	if !c.have || !(dt > 0) {
		c.qPrev, c.have = q, true
		return
	}
	for i := range 3 {
		c.qd[i] = c.speed[i].Step((q[i] - c.qPrev[i]) / dt)
	}
	c.qPrev = q
}

// step runs one control period. fDes and fMeas are the desired and
// measured force of the device on the finger (base frame [N]); tauLim the
// joint torque limits now. It returns the joint torques.
//
// In contact, fStiff is the part of fDes the pad's own displacement makes
// (K (x - X0), base frame [N]), kRender the rendered stiffness [N/m], n
// the contact normal into the cloth (base frame, unit) and vs the cloth's
// speed along it [m/s]; all zero out of contact. The rendered force then
// depends on the device's own position, which closes a position loop of
// gain K_f·kRender around the velocity loop: that part is the
// environment's reaction, not a set point, so the proportional term takes
// it whole (the set-point weight applies to the rest), and the force-loop
// gains are scaled by s = 1/(1 + K_f·kRender/ω_K) (and the integral's by
// 1/(1 + K_i·kRender/ω_I²)) to keep that loop within the bandwidth the
// velocity loop can follow (force.stiff_bandwidth_rad_s,
// stiff_integral_rad_s): the admittance-control rule of a virtual damping
// growing with the rendered stiffness. The integrator holds the
// admittance's speed; in contact its part into the cloth beyond the
// cloth's own is damped with kRender·τ_c (force.contact_tau_s), so the
// virtual mass does not carry its approach speed into a stiff surface.
// While the pad rests (its encoder speed under force.contact_rest_mps)
// only the speed it makes into the cloth is damped: a pad at rest carries
// no approach, and damping the integrator there held it short of the
// drive's stiction, so a stuck drive kept the finger's push on the
// sensor. The integral action now winds up until the drive breaks away.
func (c *controller) step(k *exo.Kin, fDes, fMeas, fStiff [3]float64, tauLim [3]float64, kRender float64, n [3]float64, vs float64) [3]float64 {
	cfg := c.cfg
	gs := 1.0
	if wk := cfg.Force.StiffBandwidth; wk > 0 {
		gs = 1 / (1 + cfg.Force.Kf*kRender/wk)
	}
	// The passivity controller's damping α joins the damper 1/K_f in
	// series: the proportional admittance falls to 1/(1/K_f + α). Added to
	// the force command instead it reached the finger only through this
	// loop, too late to dissipate at a contact limit cycle's frequency.
	gp := 1 / (1 + cfg.Force.Kf*c.damping)
	c.gainScale = gs * gp
	gi := gs
	if wi := cfg.Force.StiffIntegral; wi > 0 {
		gi = 1 / (1 + cfg.Force.Ki*kRender/(wi*wi))
	}
	if tc := cfg.Force.ContactTau; tc > 0 && kRender > 0 {
		into := vec3.Dot(c.iF, n)
		if rest := cfg.Force.ContactRest; rest > 0 {
			// At rest the speed not damped is only what the pad makes.
			if v := k.J.MulVec(c.qd); vec3.Norm(v) < rest {
				into = math.Min(into, math.Max(0, vec3.Dot(v, n)))
			}
		}
		if d := into - vs; d > 0 {
			a := math.Min(1, cfg.Force.Ki*gi*kRender*tc*c.t)
			c.iF = vec3.Sub(c.iF, vec3.Scale(a*d, n))
		}
	}
	// The error is filtered as its parts, so that the proportional term
	// can weight the set point (2-DOF PI, set-point weight β): the
	// integral sees the whole error, the proportional term
	// β (F_des - F_stiff) + F_stiff - F_meas.
	var ef, vp [3]float64
	for i := range 3 {
		c.lastErr[i] = fDes[i] - fMeas[i]
		d := c.fDes[i].Step(fDes[i])
		m := c.fMeas[i].Step(fMeas[i] - c.inject[i])
		st := c.fStf[i].Step(fStiff[i])
		ef[i] = d - m
		vp[i] = cfg.Force.SetpointWeight*(d-st) + st - m
	}
	var v [3]float64
	for i := range 3 {
		v[i] = gs*gp*cfg.Force.Kf*vp[i] + c.iF[i]
	}
	vClamped := false
	if n := vec3.Norm(v); n > cfg.Force.VMax {
		v = vec3.Scale(cfg.Force.VMax/n, v)
		vClamped = true
	}
	c.vRef = v
	tau, tauSat := c.velocityLoop(k, v, fDes, tauLim)
	// Conditional integration (anti-windup): the force integrator holds
	// while the velocity reference or any motor is saturated. It never
	// holds more than the reference's limit: the proportional term
	// pulling the other way (a set point weighted below 1) let it grow
	// beyond, and once the term fell away the clamped reference held it
	// there, at force.vmax_mps, whatever the error.
	if !vClamped && !tauSat {
		for i := range 3 {
			c.iF[i] += gi * cfg.Force.Ki * ef[i] * c.t
		}
	}
	if n := vec3.Norm(c.iF); n > cfg.Force.VMax {
		c.iF = vec3.Scale(cfg.Force.VMax/n, c.iF)
	}
	return tau
}

// velocityLoop turns the Cartesian velocity reference v into joint torques
// through the damped least-squares inverse and the joint velocity loops,
// with fFF fed forward (share force.feedforward). It reports whether a
// motor saturated.
func (c *controller) velocityLoop(k *exo.Kin, v, fFF [3]float64, tauLim [3]float64) (tau [3]float64, tauSat bool) {
	cfg := c.cfg
	c.lambda = exo.Damping(&k.J, cfg.DLS.LambdaMax, cfg.DLS.SigmaMin)
	qdRef, ok := exo.DLS(&k.J, v, math.Max(c.lambda, 1e-9))
	if !ok {
		qdRef = [3]float64{}
	}
	c.qdRef = qdRef
	ff := k.J.MulTransVec(fFF)
	var ec [3]float64
	for i := range 3 {
		ec[i] = c.cheb[i].Step(qdRef[i] - c.qd[i])
		u := cfg.Velocity.Kv[i]*ec[i] + c.iV[i] + cfg.Force.Feedforward*ff[i] + cfg.Velocity.Viscous[i]*qdRef[i]
		// Coulomb friction feedforward in the direction the reference
		// asks for, linear within ±w so that noise does not chatter.
		if w := cfg.Velocity.FrictionWidth; w > 0 {
			u += cfg.Velocity.Friction[i] * math.Max(-1, math.Min(1, qdRef[i]/w))
		}
		lim := tauLim[i]
		switch {
		case u > lim:
			u, tauSat = lim, true
			if ec[i] < 0 {
				c.iV[i] += cfg.Velocity.Ki[i] * ec[i] * c.t
			}
		case u < -lim:
			u, tauSat = -lim, true
			if ec[i] > 0 {
				c.iV[i] += cfg.Velocity.Ki[i] * ec[i] * c.t
			}
		default:
			c.iV[i] += cfg.Velocity.Ki[i] * ec[i] * c.t
		}
		tau[i] = u
	}
	return tau, tauSat
}

// stopInto removes the part of the force integrator's velocity that moves
// the pad along n (base frame, unit) faster than vs, the surface's own
// speed along n: at first contact the admittance's virtual mass (1/K_i,
// tens of grams where a fingertip weighs a few) would otherwise carry its
// approach into the cloth and press the cloth's force up before the
// finger does; the pad meets the surface as a fingertip would, inelastically.
func (c *controller) stopInto(n [3]float64, vs, share float64) {
	if d := vec3.Dot(c.iF, n) - max(vs, 0); d > 0 {
		c.iF = vec3.Sub(c.iF, vec3.Scale(share*d, n))
	}
}
