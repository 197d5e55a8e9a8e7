package haptics

import (
	"strconv"

	"github.com/haptex/haptex/sim"
)

// TickRecord is what the servo did in one tick, for the session record. It
// is a fixed-size value (no slices or pointers), so a recorder can copy it
// into a preallocated ring.
type TickRecord struct {
	T       float64 // tick time [s]
	Tick    uint64
	Overrun bool // this tick came later than safety.overrun_factor periods
	Fingers [sim.NumFingers]FingerRecord
}

// FingerRecord is one finger in a TickRecord. Vectors are in the world
// frame; forces are those of the device on the finger.
type FingerRecord struct {
	Pos       [3]float64 // pad centre [m]
	Vel       [3]float64 // pad velocity [m/s]
	ForceDes  [3]float64 // the cloth's force at the measured pad, as the simulation's local model gives it (force scale, enable ramp and force limit applied): what the finger should feel [N]
	ForceCmd  [3]float64 // the force the controller rendered towards: the cloth's with its stiffness limited, blended across sim steps, within the safety envelope [N]
	ForceMeas [3]float64 // force the sensor measured [N]
	Torque    [3]float64 // joint torque commands [N·m]
	Energy    float64    // passivity observer: energy the user put into the device [J]
	Damping   float64    // damping the passivity controller added to the force loop's admittance this tick [N·s/m]
	Contact   bool       // the finger is inside the cloth's contact region
	Stiffness float64    // stiffness the cloth's local model asked for while in contact, force scale applied (Frobenius norm) [N/m]
	Limited   bool       // the coupling rendered less stiffness than the cloth's local model asked for (outside the stable region)
	Capped    bool       // the cloth's force exceeded the finger's continuous force limit (safety.max_force_n, else the device's rating) and was capped to it: ForceDes is less than the cloth computes
	State     State
	Reason    Reason
	Confirm   Confirm // in StateSafe: how the safe state is known to hold (column safe_by)
}

var tickCSVHeader = func() string {
	h := "t_s,tick,overrun"
	for f := range sim.NumFingers {
		n := sim.FingerName(f) + "_"
		for _, c := range []string{
			"x_m", "y_m", "z_m", "vx_mps", "vy_mps", "vz_mps",
			"fdes_x_n", "fdes_y_n", "fdes_z_n", "fcmd_x_n", "fcmd_y_n", "fcmd_z_n", "fmeas_x_n", "fmeas_y_n", "fmeas_z_n",
			"tau1_nm", "tau2_nm", "tau3_nm", "energy_j", "damping_nspm", "stiffness_npm", "contact", "limited", "capped", "state", "reason", "safe_by",
		} {
			h += "," + n + c
		}
	}
	return h
}()

// TickCSVHeader returns the CSV header line (without newline) matching
// TickRecord.AppendCSV.
func TickCSVHeader() string { return tickCSVHeader }

// AppendCSV appends one CSV row (without newline) to dst. It allocates
// nothing when dst has room.
func (r *TickRecord) AppendCSV(dst []byte) []byte {
	dst = strconv.AppendFloat(dst, r.T, 'g', -1, 64)
	dst = append(dst, ',')
	dst = strconv.AppendUint(dst, r.Tick, 10)
	dst = appendBool(dst, r.Overrun)
	for f := range r.Fingers {
		fr := &r.Fingers[f]
		for _, v := range [...]*[3]float64{&fr.Pos, &fr.Vel, &fr.ForceDes, &fr.ForceCmd, &fr.ForceMeas, &fr.Torque} {
			for _, x := range v {
				dst = append(dst, ',')
				dst = strconv.AppendFloat(dst, x, 'g', 7, 64)
			}
		}
		dst = append(dst, ',')
		dst = strconv.AppendFloat(dst, fr.Energy, 'g', 7, 64)
		dst = append(dst, ',')
		dst = strconv.AppendFloat(dst, fr.Damping, 'g', 5, 64)
		dst = append(dst, ',')
		dst = strconv.AppendFloat(dst, fr.Stiffness, 'g', 5, 64)
		dst = appendBool(dst, fr.Contact)
		dst = appendBool(dst, fr.Limited)
		dst = appendBool(dst, fr.Capped)
		dst = append(dst, ',')
		dst = append(dst, fr.State.String()...)
		dst = append(dst, ',')
		dst = append(dst, fr.Reason.String()...)
		dst = append(dst, ',')
		dst = append(dst, fr.Confirm.String()...)
	}
	return dst
}

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, ",1"...)
	}
	return append(dst, ",0"...)
}
