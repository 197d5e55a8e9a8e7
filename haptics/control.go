package haptics

import (
	"fmt"
	"math"
	"time"

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

	// Outputs of the last step, for the record and tests.
	lastErr   [3]float64 // force error before injection
	vRef      [3]float64
	qdRef     [3]float64
	lambda    float64
	gainScale float64
}

func newController(cfg *Config) (*controller, error) {
	fs := float64(time.Second) / float64(cfg.Period) // sample rate [Hz]
	fe, err := filter.Butterworth(cfg.Force.ButterOrder, filter.LowPass, fs, cfg.Force.ButterHz)
	if err != nil {
		return nil, fmt.Errorf("haptics: force filter: %w", err)
	}
	fd := fe
	if cfg.Force.ReferenceHz > 0 {
		fd, err = filter.Butterworth(cfg.Force.ButterOrder, filter.LowPass, fs, cfg.Force.ReferenceHz)
		if err != nil {
			return nil, fmt.Errorf("haptics: reference filter: %w", err)
		}
	}
	sp, err := filter.Butterworth(cfg.Velocity.SpeedOrder, filter.LowPass, fs, cfg.Velocity.SpeedHz)
	if err != nil {
		return nil, fmt.Errorf("haptics: joint-speed filter: %w", err)
	}
	ch, err := filter.ChebyshevI(cfg.Velocity.ChebyOrder, cfg.Velocity.ChebyRippleDB, filter.LowPass, fs, cfg.Velocity.ChebyHz)
	if err != nil {
		return nil, fmt.Errorf("haptics: velocity-loop filter: %w", err)
	}
	c := &controller{cfg: cfg, t: cfg.Period.Seconds()}
	for i := range 3 {
		c.fDes[i] = filter.New(fd)
		c.fMeas[i] = filter.New(fe)
		c.speed[i] = filter.New(sp)
		c.cheb[i] = filter.New(ch)
	}
	return c, nil
}

// reset clears integrators and filter states, with the joints at q.
func (c *controller) reset(q [3]float64) {
	for i := range 3 {
		c.fDes[i].Reset()
		c.fMeas[i].Reset()
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
// kRender is the stiffness [N/m] of the rendered contact. The rendered
// force then depends on the device's own position, which closes a position
// loop of gain K_f·kRender around the velocity loop; the force-loop gains
// are scaled by s = 1/(1 + K_f·kRender/ω_K) to keep that loop within the
// bandwidth ω_K the velocity loop can follow (force.stiff_bandwidth_rad_s),
// which is the admittance-control rule of a virtual damping growing with
// the rendered stiffness.
func (c *controller) step(k *exo.Kin, fDes, fMeas [3]float64, tauLim [3]float64, kRender float64) [3]float64 {
	cfg := c.cfg
	gs := 1.0
	if wk := cfg.Force.StiffBandwidth; wk > 0 {
		gs = 1 / (1 + cfg.Force.Kf*kRender/wk)
	}
	c.gainScale = gs
	// The error is filtered as its two parts, so that the proportional
	// term can weight the set point (2-DOF PI, setpoint weight β): the
	// integral sees the whole error, the proportional term β F_des - F_meas.
	var ef, vp [3]float64
	for i := range 3 {
		c.lastErr[i] = fDes[i] - fMeas[i]
		d := c.fDes[i].Step(fDes[i])
		m := c.fMeas[i].Step(fMeas[i] - c.inject[i])
		ef[i] = d - m
		vp[i] = cfg.Force.SetpointWeight*d - m
	}
	var v [3]float64
	for i := range 3 {
		v[i] = gs*cfg.Force.Kf*vp[i] + c.iF[i]
	}
	vClamped := false
	if n := vec3.Norm(v); n > cfg.Force.VMax {
		v = vec3.Scale(cfg.Force.VMax/n, v)
		vClamped = true
	}
	c.vRef = v
	c.lambda = exo.Damping(&k.J, cfg.DLS.LambdaMax, cfg.DLS.SigmaMin)
	qdRef, ok := exo.DLS(&k.J, v, math.Max(c.lambda, 1e-9))
	if !ok {
		qdRef = [3]float64{}
	}
	c.qdRef = qdRef
	ff := k.J.MulTransVec(fDes)
	var tau [3]float64
	var ec [3]float64
	tauSat := false
	for i := range 3 {
		ec[i] = c.cheb[i].Step(qdRef[i] - c.qd[i])
		u := cfg.Velocity.Kv[i]*ec[i] + c.iV[i] + cfg.Force.Feedforward*ff[i]
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
	// Conditional integration (anti-windup): the force integrator holds
	// while the velocity reference or any motor is saturated.
	if !vClamped && !tauSat {
		for i := range 3 {
			c.iF[i] += gs * cfg.Force.Ki * ef[i] * c.t
		}
	}
	return tau
}
