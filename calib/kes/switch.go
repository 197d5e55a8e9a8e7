package kes

import (
	"fmt"

	"github.com/haptex/haptex/sim"
)

// SwitchRamp is the time over which a fabric switch between trials
// blends the old material into the new one: sim's tested ramp (see
// sim.Cloth.SetMaterial), under which switching between built-in fabrics on
// a hanging cloth at rest releases less than 1 % of the cloth's elastic and
// bending energy as motion (TestSwitchSmooth). The rig passes it with
// Material's result to its own SetMaterial.
const SwitchRamp = sim.MaterialRamp

// Switch makes c blend into fabric f's material over SwitchRamp of
// simulation time from its next step. Call it from the loop that steps c,
// between trials: it keeps positions and velocities, so the cloth drifts to
// its new equilibrium instead of being kicked.
func Switch(c *sim.Cloth, f *Fabric) error {
	m, err := f.Material()
	if err != nil {
		return err
	}
	if err := c.SetMaterial(m, SwitchRamp); err != nil {
		return fmt.Errorf("kes: %s: %w", f.Name, err)
	}
	return nil
}
