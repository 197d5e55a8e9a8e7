package rig

import (
	"fmt"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/link"
	devrecord "github.com/haptex/haptex/devices/record"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/sim"
)

// openDevices starts the device recordings and opens the configured
// devices; it runs in New once the session folder exists.
func (r *Rig) openDevices() error {
	if r.cfg.RecordDevices && r.session != nil {
		rec, err := devrecord.NewSession(r.session.Dir, devrecord.Options{})
		if err != nil {
			return fmt.Errorf("rig: %w", err)
		}
		r.devRec = rec
	}
	if r.cfg.OpenDevices == nil {
		return nil
	}
	set, err := r.cfg.OpenDevices(r.devRec)
	if err != nil {
		return err
	}
	for f := range sim.NumFingers {
		if r.cfg.Exos[f] == nil && set.Exo[f] != nil {
			r.cfg.Exos[f], r.exoRecorded[f] = set.Exo[f], r.devRec != nil
		}
		if r.cfg.Tactile[f] == nil && set.Tactile[f] != nil {
			r.cfg.Tactile[f], r.tactileRecorded[f] = set.Tactile[f], r.devRec != nil
		}
	}
	return nil
}

// recordExo returns dev recording the servo's calls when the rig records
// devices and dev does not record itself.
func (r *Rig) recordExo(f int, dev devices.Exoskeleton, kin *exo.Model, base exo.Pose) (devices.Exoskeleton, error) {
	if r.devRec == nil || r.exoRecorded[f] {
		return dev, nil
	}
	rec, err := r.devRec.Recorder(sim.FingerName(f)+"-exo", "exoskeleton", dev.Spec())
	if err == nil {
		err = rec.Kinematics(devrecord.Kinematics{Params: kin.Params(), Base: base})
	}
	if err != nil {
		return nil, fmt.Errorf("rig: %w", err)
	}
	return devrecord.WrapExo(dev, rec), nil
}

// recordTactile is recordExo for a tactile array.
func (r *Rig) recordTactile(f int, a devices.TactileArray) (devices.TactileArray, error) {
	if r.devRec == nil || r.tactileRecorded[f] {
		return a, nil
	}
	rec, err := r.devRec.Recorder(sim.FingerName(f)+"-tactile", "tactile", a.Spec())
	if err != nil {
		return nil, fmt.Errorf("rig: %w", err)
	}
	return devrecord.WrapTactile(a, rec), nil
}

// LinkLimits are the host's own limits on a device (the servo's [limits]
// in haptics/servo.toml) in the form the device links check at every
// handshake, so that a device is refused by the same numbers whether its
// capability record is checked by the link or by the servo.
func LinkLimits(lc haptics.LimitsConfig) link.Limits {
	return link.Limits{
		MaxForceCont: lc.MaxForceCont,
		MaxForcePeak: lc.MaxForcePeak,
		MaxTorque:    max(lc.MaxTorque[0], lc.MaxTorque[1], lc.MaxTorque[2]),
	}
}
