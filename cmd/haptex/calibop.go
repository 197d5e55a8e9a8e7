package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/haptex/haptex/calib/device"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/setup"
)

// operator is who carries out a calibration's steps: the emulator's
// stand over its socket for an emulated device, the person at the
// terminal for a real one.
type operator struct {
	stand  *emu.Stand // nil for a real device
	name   string     // the emulated device's name
	in     *bufio.Reader
	out    io.Writer
	finger string
}

func (o *operator) close() {
	if o.stand != nil {
		o.stand.Close()
	}
}

// findOperator returns the operator of device d: the announced emulator's
// stand when an emulator serves its port.
func findOperator(d setup.Device, finger string, in *bufio.Reader, out io.Writer) (*operator, error) {
	o := &operator{in: in, out: out, finger: finger}
	if d.Kind != setup.KindSerial {
		return o, nil
	}
	a, p, ok := emu.FindPort(d.Port)
	if !ok {
		return o, nil
	}
	st, err := emu.DialStand(a.Socket)
	if err != nil {
		return nil, err
	}
	o.stand, o.name = st, p.Name
	return o, nil
}

// who says who does the steps.
func (o *operator) who() string {
	if o.stand != nil {
		return "the emulated stand does it"
	}
	return "press Enter when done, q to stop"
}

// confirm shows a step and, at a real stand, waits for the operator's
// Enter.
func (o *operator) confirm(st device.Step) error {
	fmt.Fprintf(o.out, "[%d/%d] %s %s (%s)\n", st.Index+1, st.Total, o.finger, st.Instruction, o.who())
	if o.stand != nil {
		return nil
	}
	line, err := o.in.ReadString('\n')
	if err != nil && line == "" {
		return fmt.Errorf("waiting for the operator: %w", err)
	}
	if strings.TrimSpace(strings.ToLower(line)) == "q" {
		return errors.New("stopped by the operator")
	}
	return nil
}

// Measure is the vibrometer: the emulator's, or the operator's reading
// typed at the terminal.
func (o *operator) Measure(pin, freqHz int) (float64, error) {
	if o.stand != nil {
		return o.stand.Vibrometer(o.name, pin, freqHz)
	}
	for {
		fmt.Fprintf(o.out, "    vibrometer reading of pin %d at %d Hz, µm peak: ", pin, freqHz)
		line, err := o.in.ReadString('\n')
		if err != nil && line == "" {
			return 0, fmt.Errorf("waiting for the vibrometer reading: %w", err)
		}
		v, perr := strconv.ParseFloat(strings.TrimSpace(line), 64)
		if perr == nil && v >= 0 && !math.IsInf(v, 0) {
			return v, nil
		}
		fmt.Fprintln(o.out, "    a number of micrometres, please (0 for a pin that does not move)")
	}
}
