package emu

import (
	"fmt"
	"strings"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
)

// fingerOf maps a device name "thumb-..." or "index-..." to its finger
// index (sim.Thumb or sim.IndexFinger).
func fingerOf(name string) (int, error) {
	switch {
	case strings.HasPrefix(name, "thumb"):
		return 0, nil
	case strings.HasPrefix(name, "index"):
		return 1, nil
	}
	return 0, fmt.Errorf("emu: device %q: name must start with thumb or index to pick a finger", name)
}

// PhysicalExo builds the physical twin of devices/twin for the device's
// finger: the exoskeleton with a finger following the default handling
// script, at the default base. Its in-process transport delays are set to
// zero: the emulated device's transport is the real one.
func PhysicalExo(dc DeviceConfig) (devices.Exoskeleton, error) {
	return physicalExo(dc, twin.DefaultScript(twin.DefaultScene()))
}

func physicalExo(dc DeviceConfig, script *twin.Script) (devices.Exoskeleton, error) {
	return handExo(dc, script, false)
}

// handExo builds the physical twin on a hand that follows intent, with the
// calibration twin's errors when errs is set.
func handExo(dc DeviceConfig, intent twin.Intent, errs bool) (devices.Exoskeleton, error) {
	f, err := fingerOf(dc.Name)
	if err != nil {
		return nil, err
	}
	return twin.NewExo(exoParams(dc, errs), twin.DefaultBase(f), intent, f)
}

// PhysicalTactile builds the simulated piezo pin array of devices/twin.
func PhysicalTactile(dc DeviceConfig) (devices.TactileArray, error) {
	f, err := fingerOf(dc.Name)
	if err != nil {
		return nil, err
	}
	return twin.NewTactile(twin.DefaultTactileParams(), f)
}
