package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/wire"
)

// watchPower prints every switch of an emulated exoskeleton's power
// stage, with what switched it (enable, disable, hello, watchdog, fault):
// the safe state as the device itself confirms it. A switch the output
// cannot take at once is dropped; the device is never held for it, and
// the line is formatted away from the device's real-time loop, which
// reports the switch.
func watchPower(em *emu.Emulator, out io.Writer) {
	type power struct {
		name, cause string
		on          bool
	}
	switches := make(chan power, 256)
	for _, p := range em.Ports() {
		if p.Kind != wire.KindExo.String() {
			continue
		}
		name := p.Name
		em.Plug(name).Device().OnPower(func(on bool, cause string) {
			select {
			case switches <- power{name, cause, on}:
			default:
			}
		})
	}
	go func() {
		for s := range switches {
			state := "off"
			if s.on {
				state = "on"
			}
			fmt.Fprintf(out, "%s: power stage %s (%s)\n", s.name, state, s.cause)
		}
	}()
}

const consoleHelp = `while it runs, type on its standard input:
  fault DEVICE NAME[,NAME...]  a fault condition present now, as the device's own
                               sensors would report it (NAMES); it cuts an
                               exoskeleton's power stage and stays latched until
                               the next HELLO after "fault DEVICE none"
  fault DEVICE none            the condition has gone
  wear DEVICE FRACTION         a tactile array's drive reaches only FRACTION (0..1]
                               of the limits it announces: it clips above them and
                               its status says so (1: as new)
  dead DEVICE PIN[,PIN...]     a tactile array's pins (0..23) stand still whatever
                               they are sent, its status silent about it; "none"
                               revives them
  unplug DEVICE                pull the cable (the port's link disappears)
  replug DEVICE                plug it back in on a new pseudo-terminal
  help                         this text
NAMES: `

// emulatorConsole reads commands from in until it ends and acts on the
// emulated devices, so that a lab engineer can press an emergency stop or
// pull a cable while haptex runs against them; each command answers one
// line on out.
func emulatorConsole(in io.Reader, out io.Writer, em *emu.Emulator) {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		msg, err := consoleCommand(f, em)
		if err != nil {
			fmt.Fprintf(out, "%v\n", err)
			continue
		}
		fmt.Fprintln(out, msg)
	}
}

func consoleCommand(f []string, em *emu.Emulator) (string, error) {
	switch f[0] {
	case "help":
		return consoleHelp + faultNames(), nil
	case "fault", "wear", "dead", "unplug", "replug":
	default:
		return "", fmt.Errorf("%q: not a command (help lists them)", strings.Join(f, " "))
	}
	if len(f) < 2 {
		return "", fmt.Errorf("%q: which device? (help lists the commands)", strings.Join(f, " "))
	}
	p := em.Plug(f[1])
	if p == nil {
		var names []string
		for _, q := range em.Ports() {
			names = append(names, q.Name)
		}
		return "", fmt.Errorf("no device %q (have %s)", f[1], strings.Join(names, ", "))
	}
	switch {
	case f[0] == "unplug" && len(f) == 2:
		if err := p.Unplug(); err != nil {
			return "", err
		}
		return f[1] + ": unplugged", nil
	case f[0] == "replug" && len(f) == 2:
		if err := p.Replug(); err != nil {
			return "", err
		}
		return f[1] + ": plugged in at " + p.TTY(), nil
	case f[0] == "wear" && len(f) == 3:
		x, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return "", fmt.Errorf("%q: the fraction of the limits, a number in (0, 1]", strings.Join(f, " "))
		}
		if err := p.Device().SetWear(x); err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: drive reaches %g of its limits", f[1], x), nil
	case f[0] == "dead" && len(f) == 3:
		var pins []int
		if f[2] != "none" {
			for _, v := range strings.Split(f[2], ",") {
				n, err := strconv.Atoi(v)
				if err != nil {
					return "", fmt.Errorf("%q: the pins, numbers 0..23 separated by commas, or none", strings.Join(f, " "))
				}
				pins = append(pins, n)
			}
		}
		if err := p.Device().SetDeadPins(pins); err != nil {
			return "", err
		}
		if pins == nil {
			return f[1] + ": every pin moves", nil
		}
		return fmt.Sprintf("%s: pins %v stand still", f[1], pins), nil
	case f[0] == "fault" && len(f) == 3:
		bits, err := parseFaults(f[2])
		if err != nil {
			return "", err
		}
		p.Device().SetCondition(bits)
		if bits == 0 {
			return f[1] + ": no fault condition (the fault bits clear at the next HELLO)", nil
		}
		return f[1] + ": fault condition " + f[2], nil
	}
	return "", fmt.Errorf("%q: not a command (help lists them)", strings.Join(f, " "))
}

// parseFaults turns "estop,over_temp" (or "none") into wire.Fault bits.
func parseFaults(s string) (uint32, error) {
	if s == "none" {
		return 0, nil
	}
	var bits uint32
	for _, n := range strings.Split(s, ",") {
		found := false
		for _, b := range wire.FaultBits {
			if b.Name == n {
				bits |= b.Mask
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("no fault %q (have %s, none)", n, faultNames())
		}
	}
	return bits, nil
}

func faultNames() string {
	var n []string
	for _, b := range wire.FaultBits {
		n = append(n, b.Name)
	}
	return strings.Join(n, ", ")
}
