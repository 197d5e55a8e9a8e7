package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/haptex/haptex/app/rig"
)

// printSummary writes a run's summary for people: the loops' rates and
// lateness, what each finger felt (and what the cloth asked), the pinch, and where the run recorded.
func printSummary(w io.Writer, s *rig.Summary) {
	fmt.Fprintf(w, "%s run of %s: %.2f s of run time in %.2f s\n\n", s.Mode, s.Fabric, s.RunS, s.WallS)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "loop\tperiod ms\tticks\trate Hz\trt\tlate p50 µs\tp99\tp99.9\tmax\tcompute p99 µs\toverruns\t>1 ms\t")
	for _, l := range s.Loops {
		fmt.Fprintf(tw, "%s\t%g\t%d\t%.1f\t%v\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t%d\t\n", l.Name, l.PeriodMs, l.Ticks, l.RateHz, l.RealTime,
			l.LatenessUs.P50, l.LatenessUs.P99, l.LatenessUs.P999, l.LatenessUs.Max, l.ComputeUs.P99, l.Overruns, l.LateOver1ms)
	}
	tw.Flush()
	for _, l := range s.Loops {
		if l.Standby {
			fmt.Fprintf(w, "%s: its standby thread on the other core ran %d of the ticks\n", l.Name, l.Takeovers)
		}
		if l.RealTime && len(l.LateTicks) > 0 {
			fmt.Fprintf(w, "%s: %d ticks later than 1 ms, the first at %.3f s; session.json lists them (scripts/hostpauses.py tells whether the host stopped the machine)\n",
				l.Name, l.LateOver1ms, l.LateTicks[0].TS)
		}
	}
	if s.IdlePoll {
		fmt.Fprintln(w, "idle cores polled during the run (PM QoS; -idle-sleep turns it off)")
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "finger\tcontact s\tpeak force N\tmean force N\tasked peak N\tasked mean N\t")
	for _, f := range s.Fingers {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", f.Finger, f.ContactS, f.PeakForceN, f.MeanForceN, f.PeakForceDesN, f.MeanForceDesN)
	}
	tw.Flush()
	if s.Kinematic {
		fmt.Fprintln(w, "(-kinematic: no device rendered the force and no sensor measured any; asked: the force the cloth gives at the scripted fingertips)")
	} else {
		fmt.Fprintln(w, "(force: what the fingertip sensor measured; asked: what the cloth asked the device to render)")
	}
	fmt.Fprintf(w, "pinch: both fingers held the cloth for %.3f s, peak pinch force %.3f N (asked %.3f N)\n", s.PinchS, s.PeakPinchN, s.PeakPinchDesN)
	var frames uint64
	for _, l := range s.Loops {
		if l.Name == "tactile" {
			frames = l.Ticks
		}
	}
	for _, f := range s.Fingers {
		if f.TactileNotWritten > 0 {
			fmt.Fprintf(w, "tactile: %d of the %d frames for the %s's pins not written (the array gone, reconnecting or refusing them)\n", f.TactileNotWritten, frames, f.Finger)
		}
		if f.TactileClipped > 0 {
			fmt.Fprintf(w, "tactile: %d of the %d frames for the %s's pins clipped by its array at its amplitude limits (it drove less than was sent: a worn array, or limits it announces but does not reach)\n", f.TactileClipped, frames, f.Finger)
		}
		if f.TactileSilenced > 0 {
			fmt.Fprintf(w, "tactile: %d of the %d frames for the %s's pins written while its array said it had silenced itself or had a fault\n", f.TactileSilenced, frames, f.Finger)
		}
		if d := f.TactileDelivered; d != nil {
			fmt.Fprintln(w, deliveredLine(f.Finger, d))
		}
	}
	if s.TripCount > 0 {
		fmt.Fprintf(w, "trips: %d", s.TripCount)
		if len(s.Trips) < s.TripCount {
			fmt.Fprintf(w, " (the first %d:)", len(s.Trips))
		}
		fmt.Fprintln(w)
		for _, tr := range s.Trips {
			fmt.Fprintf(w, "  %8.3f s  %-5s %s: %s; %s\n", tr.TS, tr.Finger, tr.Reason, tr.Cause, safeBy(tr))
		}
	}
	if l := rig.EndLine(s.EndOfRun); l != "" {
		fmt.Fprintln(w, l)
	}
	if ct := s.ContactTracking; ct != nil {
		fmt.Fprintf(w, "contact tracking (thumb, index): rms_rel %.3f %.3f, peak_shortfall %.3f %.3f, onset_overshoot %.3f %.3f over %d %d episodes; %d %d light touches (under 0.05 N), onset excess %.0f %.0f mN; stiffness limited %.3f %.3f s\n",
			ct.RMSRel[0], ct.RMSRel[1], ct.PeakShortfall[0], ct.PeakShortfall[1], ct.OnsetOvershoot[0], ct.OnsetOvershoot[1], ct.Episodes[0], ct.Episodes[1],
			ct.LightEpisodes[0], ct.LightEpisodes[1], 1e3*ct.LightOnsetExcessN[0], 1e3*ct.LightOnsetExcessN[1], ct.LimitedS[0], ct.LimitedS[1])
		if ct.CappedS[0] > 0 || ct.CappedS[1] > 0 {
			fmt.Fprintf(w, "  force capped at the fingers' force limit %.3f %.3f s: they were asked for less than the cloth computed (the figures above compare with the capped force)\n", ct.CappedS[0], ct.CappedS[1])
		}
	}
	for _, l := range s.Loops {
		// A cloth that fell behind real time gave the servo older local
		// models than lockstep does: the contact figures are then the
		// host's as much as the code's.
		if s.Mode != "realtime" || l.Name != "sim" || !(l.PeriodMs > 0) {
			continue
		}
		if want := s.RunS * 1e3 / l.PeriodMs; float64(l.Ticks) < 0.98*want {
			fmt.Fprintf(w, "sim: %d of the run's %.0f steps made (%.1f %%): the cloth fell behind real time, so the contact figures above are not the code's alone (haptex run -lockstep gives those)\n",
				l.Ticks, want, 100*float64(l.Ticks)/want)
		}
	}
	if s.HostStealPct >= 2 {
		fmt.Fprintf(w, "host: the hypervisor took %.0f %% of this machine's CPU time during the run (steal); late ticks above are partly its doing\n", s.HostStealPct)
	}
	if len(s.Tables) > 0 {
		var parts []string
		for _, t := range s.Tables {
			part := fmt.Sprintf("%s %d rows, %d dropped", t.File, t.Rows, t.Dropped)
			if t.Lost > 0 || t.Error != "" {
				part += fmt.Sprintf(", %d lost after a write the disk refused", t.Lost)
			}
			parts = append(parts, part)
		}
		fmt.Fprintf(w, "recorded: %s\n", strings.Join(parts, "; "))
	}
	if s.SessionDir != "" {
		fmt.Fprintf(w, "session folder: %s\n", s.SessionDir)
	}
}

// safeBy says how a trip's safe state was known to hold.
func safeBy(tr rig.Trip) string {
	var ms float64
	if tr.ConfirmedMs != nil {
		ms = *tr.ConfirmedMs
	}
	var said string
	switch tr.SafeBy {
	case "device":
		return fmt.Sprintf("the device confirmed its power stage off %.0f ms later", ms)
	case "watchdog":
		return fmt.Sprintf("the device's watchdog cut its motors %.0f ms later", ms)
	case "lost":
		said = "the device went away: nothing confirmed its safe state"
	case "commanded":
		said = "the host switched the power stage off; the device did not confirm it"
	default:
		said = "not yet safe when the finger was enabled again or the run ended"
	}
	if tr.Revoked {
		said += fmt.Sprintf(" (it had confirmed %.0f ms after the trip, then reported the stage on again)", ms)
	}
	return said
}

// deliveredLine says what a finger's array measured its pins delivering
// against what was sent, and names the pins driven that did not move.
func deliveredLine(finger string, d *rig.DeliverySummary) string {
	var b strings.Builder
	r40, ok40 := d.Ratio(0)
	r320, ok320 := d.Ratio(1)
	switch {
	case ok40 && ok320:
		fmt.Fprintf(&b, "tactile: the %s's pins delivered %.2f of what was sent at 40 Hz, %.2f at 320 Hz (pins sent %g µm or more", finger, r40, r320, d.DrivenUm)
	case ok40 || ok320:
		r, hz := r40, 40
		if ok320 {
			r, hz = r320, 320
		}
		fmt.Fprintf(&b, "tactile: the %s's pins delivered %.2f of what was sent at %d Hz (pins sent %g µm or more", finger, r, hz, d.DrivenUm)
	default:
		fmt.Fprintf(&b, "tactile: no pin of the %s's array was sent %g µm or more (nothing to compare", finger, d.DrivenUm)
	}
	fmt.Fprintf(&b, ", over %d frames measured by the array", d.Frames)
	switch {
	case d.Unpaired == 1:
		b.WriteString("; 1 frame without a measurement of its own")
	case d.Unpaired > 1:
		fmt.Fprintf(&b, "; %d frames without a measurement of their own", d.Unpaired)
	}
	b.WriteString(")")
	if len(d.StillPins) > 0 {
		fmt.Fprintf(&b, "\n  pins %v of the %s's array were driven but did not move (under a tenth of what was sent in most frames): a dead pin or a broken contactor", d.StillPins, finger)
	}
	return b.String()
}
