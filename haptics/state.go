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
	ReasonModelNaN              // non-finite value in the cloth's LocalModel
	ReasonControlNaN            // non-finite value inside the controller
	ReasonSensorSpike           // sample-to-sample force change above safety.max_force_jump_n
	ReasonForceTrip             // measured force above safety.trip_force_n
	ReasonOverspeed             // pad speed above safety.max_speed_mps
	ReasonDeviceFault           // the device reported fault bits
	ReasonDeviceDisabled        // the device's power stage went off by itself
	ReasonEnableTimeout         // the device did not report its power stage on within safety.enable_wait_ms
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
}

func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "reason?"
}
