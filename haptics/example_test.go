package haptics_test

import (
	"fmt"
	"time"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/sim"
)

// Example wires the servo to the two simulated exoskeletons following the
// showcase handling script, and runs one second in virtual time: what the
// rig does in `haptex run`, without the other loops.
func Example() {
	script := twin.DefaultScript(twin.DefaultScene())
	params := twin.DefaultExoParams()
	var fingers [sim.NumFingers]haptics.Finger
	for f := range sim.NumFingers {
		dev, err := twin.NewExo(params, twin.DefaultBase(f), script, f)
		if err != nil {
			panic(err)
		}
		fingers[f] = haptics.Finger{Device: dev, Kin: dev.Kinematics(), Base: dev.Base()}
	}
	servo, err := haptics.NewServo(haptics.DefaultConfig(), fingers)
	if err != nil {
		panic(err)
	}
	var in sim.Output // the latest simulation output; zero: no cloth yet
	var out sim.FingerState
	var rec haptics.TickRecord
	for t := time.Duration(0); t < time.Second; t += time.Millisecond {
		servo.Tick(t, &in, &out, &rec)
	}
	for f := range sim.NumFingers {
		st := servo.Status(f)
		fmt.Printf("%s: %v, pad z %.3f m\n", sim.FingerName(f), st.State, out.Fingers[f].Pos[2])
	}
	// Output:
	// thumb: active, pad z -0.040 m
	// index: active, pad z 0.012 m
}
