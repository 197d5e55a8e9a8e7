package device_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/haptex/haptex/calib/device"
	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/twin"
)

// terminalPrompt shows each step on the terminal and waits for Enter; q
// aborts.
func terminalPrompt() device.Prompt {
	in := bufio.NewReader(os.Stdin)
	return func(st device.Step) error {
		fmt.Printf("[%d/%d] %s; press Enter when done (q aborts) ", st.Index+1, st.Total, st.Instruction)
		line, err := in.ReadString('\n')
		if err != nil {
			return err
		}
		if strings.TrimSpace(line) == "q" {
			return errors.New("aborted by the operator")
		}
		return nil
	}
}

// `haptex calib kinematics` on the rig: a pose plan for the default
// parameters, the operator at the terminal, real time. (Compile-only: it
// needs the hardware.)
func ExampleRunKinematics() {
	var dev devices.Exoskeleton    // the index finger's exoskeleton, opened by the command
	nominal := exo.DefaultParams() // from the device description file
	plan, err := device.PlanPoses(nominal, device.DefaultKinParams(), 15)
	if err != nil {
		log.Fatal(err)
	}
	s := device.Session{Finger: "index", Prompt: terminalPrompt()}
	c, err := device.RunKinematics(context.Background(), dev, s, nominal, plan)
	if err != nil {
		log.Fatal(err)
	}
	f, err := os.Create("index-kinematics.json")
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Write(f); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("fingertip error at the jig points: %.0f µm before, %.1f µm after\n", c.Report.NominalRMSUm, c.Report.ResidualRMSUm)
}

// `haptex calib tactile -device sim`: the simulated array on a virtual
// clock, its vibrometer reading the delivered amplitudes, no operator.
func ExampleRunTactile() {
	arr, err := twin.NewTactile(twin.DefaultTactileParams(), 1)
	if err != nil {
		log.Fatal(err)
	}
	clock := device.NewVirtualClock(arr)
	s := device.Session{Finger: "index", Clock: clock, Prompt: func(device.Step) error { return nil }}
	c, err := device.RunTactile(context.Background(), arr, device.DeliveredVibrometer{Array: arr}, s, device.DefaultTactilePlan(arr.Spec()))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("every pin within 0.1 dB after correction: %v\n", c.Report.VerifyMaxDB < 0.1)
	// Output:
	// every pin within 0.1 dB after correction: true
}
