package setup

import (
	"errors"
	"fmt"
	"sync"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/hid"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/reconnect"
	"github.com/haptex/haptex/devices/record"
	"github.com/haptex/haptex/devices/serial"
	"github.com/haptex/haptex/devices/transport"
)

// Options configure Open. The zero value opens real devices with
// reconnection, without recording, and for "sim" the physical twins of
// devices/twin with the finger following the default handling script.
type Options struct {
	// SimExo and SimTactile build the simulated devices of a finger (0
	// thumb, 1 index), e.g. devices/twin twins driven by the run's script.
	// Nil means emu.PhysicalExo and emu.PhysicalTactile.
	SimExo     func(finger int) (devices.Exoskeleton, error)
	SimTactile func(finger int) (devices.TactileArray, error)
	// Link configures the protocol links of real devices.
	Link link.Options
	// Reconnect configures hot-plug; NoReconnect opens real devices bare
	// (a lost device then stays lost).
	Reconnect   reconnect.Options
	NoReconnect bool
	// Record, when set, records every device (transport bytes and loop
	// calls) into the session folder it belongs to.
	Record *record.Session
	// SkipSim leaves the simulated devices' entries of the Set nil, for a
	// caller (the rig) that builds its own simulated twins.
	SkipSim bool
}

// Set is the opened devices of a run, indexed by finger. Every
// exoskeleton is an *Exo: it carries its kinematic model and base pose.
type Set struct {
	Exo     [2]devices.Exoskeleton
	Tactile [2]devices.TactileArray
	// Names are the recording names: "thumb-exo", "thumb-tactile", ...
	ExoNames, TactileNames [2]string
}

// OpenError reports a device that could not be opened.
type OpenError struct {
	Finger string
	Role   string
	Device Device
	Err    error
}

func (e *OpenError) Error() string {
	return fmt.Sprintf("setup: %s %s (%v): %v", e.Finger, e.Role, e.Device, e.Err)
}
func (e *OpenError) Unwrap() error { return e.Err }

func openConn(d Device) (transport.Conn, error) {
	switch d.Kind {
	case KindSerial:
		return serial.Open(d.Port, serial.Options{Baud: d.Baud})
	case KindHID:
		return hid.Open(uint16(d.VID), uint16(d.PID), d.Serial)
	}
	return nil, fmt.Errorf("setup: kind %q has no transport", d.Kind)
}

// Open opens every device of f, or none: on error the devices already
// opened are closed again. With several failures the error joins them all.
func Open(f *File, opt Options) (*Set, error) {
	s := &Set{}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for fi := range f.Fingers {
		fg := f.Fingers[fi]
		s.ExoNames[fi] = Fingers[fi] + "-exo"
		s.TactileNames[fi] = Fingers[fi] + "-tactile"
		wg.Add(2)
		go func() {
			defer wg.Done()
			x, err := openExo(fi, fg.Exoskeleton, s.ExoNames[fi], opt)
			if err != nil {
				errs[2*fi] = &OpenError{Finger: Fingers[fi], Role: RoleExo, Device: fg.Exoskeleton, Err: err}
				return
			}
			s.Exo[fi] = x
		}()
		go func() {
			defer wg.Done()
			t, err := openTactile(fi, fg.Tactile, s.TactileNames[fi], opt)
			if err != nil {
				errs[2*fi+1] = &OpenError{Finger: Fingers[fi], Role: RoleTactile, Device: fg.Tactile, Err: err}
				return
			}
			s.Tactile[fi] = t
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func openExo(fi int, d Device, name string, opt Options) (devices.Exoskeleton, error) {
	if d.Kind == KindSim && opt.SkipSim {
		return nil, nil
	}
	var rec *record.Recorder
	if opt.Record != nil {
		var err error
		if rec, err = opt.Record.Recorder(name, RoleExo, nil); err != nil {
			return nil, err
		}
	}
	var x devices.Exoskeleton
	var k record.Kinematics
	var err error
	if d.Kind == KindSim {
		if opt.SimExo != nil {
			x, err = opt.SimExo(fi)
		} else {
			x, err = emu.PhysicalExo(emu.DeviceConfig{Name: name})
		}
	} else {
		if d.cal == nil {
			// A file from Parse: its calibration paths are as given.
			if err := d.loadCalibrations(fi, ""); err != nil {
				return nil, err
			}
		}
		// The model the servo will drive the device with, known before
		// the handshake so that the link checks the device's CAPS against
		// it (joint limits, torques) on every (re)connection.
		if k, err = d.kinematics(fi); err != nil {
			return nil, err
		}
		lo := opt.Link
		lo.Transport = devices.Transport(d.Kind)
		if lo.Kinematics, err = exo.New(k.Params); err != nil {
			return nil, fmt.Errorf("setup: %w", err)
		}
		open := func() (devices.Exoskeleton, error) {
			c, err := openConn(d)
			if err != nil {
				return nil, err
			}
			if rec != nil {
				c = record.WrapConn(c, rec)
			}
			return link.DialExo(c, lo)
		}
		if opt.NoReconnect {
			x, err = open()
		} else {
			x, err = reconnect.NewExo(name, open, opt.Reconnect)
		}
	}
	if err != nil {
		return nil, err
	}
	if c := d.cal; c != nil {
		if err := c.checkDevice(x.Spec()); err != nil {
			x.Close()
			return nil, err
		}
		if c.force != nil {
			clk, _ := x.(devices.Clocked)
			x = &sensorCalibrated{Exoskeleton: x, cal: c.force, clock: clk}
		}
	}
	if own, ok := x.(kinematic); ok {
		k = record.Kinematics{Params: own.Kinematics().Params(), Base: own.Base()}
	}
	if rec != nil {
		err := rec.Spec(x.Spec())
		if err == nil {
			err = rec.Kinematics(k)
		}
		if err != nil {
			x.Close()
			return nil, err
		}
		x = record.WrapExo(x, rec)
	}
	kx, err := newExo(x, k)
	if err != nil {
		x.Close()
		return nil, err
	}
	return kx, nil
}

// kinematic is a device that knows its own geometry (the simulated twins).
type kinematic interface {
	Kinematics() *exo.Model
	Base() exo.Pose
}

func openTactile(fi int, d Device, name string, opt Options) (devices.TactileArray, error) {
	if d.Kind == KindSim && opt.SkipSim {
		return nil, nil
	}
	var rec *record.Recorder
	if opt.Record != nil {
		var err error
		if rec, err = opt.Record.Recorder(name, RoleTactile, nil); err != nil {
			return nil, err
		}
	}
	var t devices.TactileArray
	var err error
	if d.Kind == KindSim {
		if opt.SimTactile != nil {
			t, err = opt.SimTactile(fi)
		} else {
			t, err = emu.PhysicalTactile(emu.DeviceConfig{Name: name})
		}
	} else {
		lo := opt.Link
		lo.Transport = devices.Transport(d.Kind)
		open := func() (devices.TactileArray, error) {
			c, err := openConn(d)
			if err != nil {
				return nil, err
			}
			if rec != nil {
				c = record.WrapConn(c, rec)
			}
			return link.DialTactile(c, lo)
		}
		if opt.NoReconnect {
			t, err = open()
		} else {
			t, err = reconnect.NewTactile(name, open, opt.Reconnect)
		}
	}
	if err != nil {
		return nil, err
	}
	if rec != nil {
		if err := rec.Spec(t.Spec()); err != nil {
			t.Close()
			return nil, err
		}
		t = record.WrapTactile(t, rec)
	}
	return t, nil
}

// Close closes every device of the set.
func (s *Set) Close() error {
	var errs []error
	for i := range s.Exo {
		if s.Exo[i] != nil {
			errs = append(errs, s.Exo[i].Close())
		}
		if s.Tactile[i] != nil {
			errs = append(errs, s.Tactile[i].Close())
		}
	}
	return errors.Join(errs...)
}
