package haptics

// State is where a finger is in the safety envelope.
type State uint8

const (
	// StateSafe: no torque, motors disabled. Every finger starts here and
	// returns here after a fault; it is re-enabled after a healthy spell.
	StateSafe State = iota
	// StateEnabling: torque limit and rendered force ramp up from zero.
	StateEnabling
	// StateActive: the controller renders the cloth.
	StateActive
	// StateStopping: a fault was seen; torque ramps to zero.
	StateStopping
)

func (s State) String() string {
	switch s {
	case StateSafe:
		return "safe"
	case StateEnabling:
		return "enabling"
	case StateActive:
		return "active"
	case StateStopping:
		return "stopping"
	}
	return "state?"
}

// Reason says why a finger left (or has not yet reached) StateActive.
type Reason uint8

const (
	ReasonNone           Reason = iota
	ReasonStartup               // not enabled yet since the servo started
	ReasonNoDevice              // no device configured for the finger
	ReasonDisconnected          // Read or Write returned devices.ErrDisconnected
	ReasonDeviceError           // Read, Write or Enable returned another error
	ReasonSilent                // no new sample for longer than safety.silent_ms
	ReasonOverrun               // safety.overrun_streak late ticks in a row
	ReasonSensorNaN             // non-finite joint angle or force sample
	ReasonModelNaN              // non-finite value in the cloth's LocalModel (its velocity V included)
	ReasonControlNaN            // non-finite value inside the controller
	ReasonSensorSpike           // sample-to-sample force change above safety.max_force_jump_n
	ReasonForceTrip             // measured force above safety.trip_force_n
	ReasonOverspeed             // pad speed above safety.max_speed_mps
	ReasonDeviceFault           // the device reported fault bits
	ReasonDeviceDisabled        // the device's power stage went off by itself
	ReasonEnableTimeout         // the device did not report its power stage on within safety.enable_wait_ms

	// Checks of the device against the host's own model and limits.
	ReasonSensorImplausible // force sensor and torque-implied force disagree (safety.plausible_force_n, safety.plausible_ms)
	ReasonJointRange        // a joint reading outside the declared range by more than limits.joint_margin_rad
	ReasonClockJump         // the device's clock ran backwards, or ahead of the host's by more than safety.clock_jump_ms
	ReasonStaysEnabled      // the power stage reported on while the host wants it off, past safety.disable_wait_ms
	ReasonHostClock         // the host's clock (Tick's time) ran backwards
	ReasonModelInvalid      // the cloth's LocalModel breaks its contract: a normal not of unit length, K not symmetric negative semi-definite, or its linearisation point far from the pad

	ReasonStopped // the host ended the session (Servo.Stop)
)

var reasonNames = [...]string{
	ReasonNone:           "none",
	ReasonStartup:        "startup",
	ReasonNoDevice:       "no-device",
	ReasonDisconnected:   "disconnected",
	ReasonDeviceError:    "device-error",
	ReasonSilent:         "device-silent",
	ReasonOverrun:        "overrun",
	ReasonSensorNaN:      "sensor-nan",
	ReasonModelNaN:       "model-nan",
	ReasonControlNaN:     "control-nan",
	ReasonSensorSpike:    "sensor-spike",
	ReasonForceTrip:      "force-trip",
	ReasonOverspeed:      "overspeed",
	ReasonDeviceFault:    "device-fault",
	ReasonDeviceDisabled: "device-disabled",
	ReasonEnableTimeout:  "enable-timeout",

	ReasonSensorImplausible: "sensor-implausible",
	ReasonJointRange:        "joint-range",
	ReasonClockJump:         "clock-jump",
	ReasonStaysEnabled:      "stays-enabled",
	ReasonHostClock:         "host-clock",
	ReasonModelInvalid:      "model-invalid",

	ReasonStopped: "stopped",
}

func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "reason?"
}

// Confirm says how a finger's safe state is known to hold: whether the
// host only commanded it, or the device confirmed it.
type Confirm uint8

const (
	// ConfirmNone: the finger is not in StateSafe.
	ConfirmNone Confirm = iota
	// ConfirmCommanded: the host switched the power stage off and no
	// sample has reported it off since.
	ConfirmCommanded
	// ConfirmDevice: a sample from the device reported its power stage
	// off while the host wanted it off.
	ConfirmDevice
	// ConfirmWatchdog: the device did not confirm, and the link stopped
	// talking to it so that the device's own watchdog cuts the motors.
	ConfirmWatchdog
	// ConfirmLost: the device is gone (disconnected): nothing can
	// confirm its state.
	ConfirmLost
)

var confirmNames = [...]string{
	ConfirmNone:      "",
	ConfirmCommanded: "commanded",
	ConfirmDevice:    "device",
	ConfirmWatchdog:  "watchdog",
	ConfirmLost:      "lost",
}

func (c Confirm) String() string {
	if int(c) < len(confirmNames) {
		return confirmNames[c]
	}
	return "confirm?"
}
