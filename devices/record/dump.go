package record

import (
	"fmt"
	"io"

	"github.com/haptex/haptex/devices/wire"
	"github.com/haptex/haptex/internal/safefile"
)

// Dump prints the recording at path, one line per event, with the frames
// of the transport bytes decoded (and the damaged ones named), so that a
// session can be debugged without the hardware.
func Dump(w io.Writer, path string) error {
	f, err := safefile.Open(path, MaxFileSize)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	defer f.Close()
	r, err := NewReader(f)
	if err != nil {
		return fmt.Errorf("%w (%s)", err, path)
	}
	fmt.Fprintf(w, "# %s (%s), recorded %s\n", r.Meta.Name, r.Meta.Kind, r.Meta.Created.Format("2006-01-02 15:04:05.000"))
	var dec [2]wire.Decoder // RX, TX
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := dumpEvent(w, ev, &dec); err != nil {
			return err
		}
	}
}

func dumpEvent(w io.Writer, ev Event, dec *[2]wire.Decoder) error {
	t := ev.T.Seconds()
	switch ev.Kind {
	case KindRX, KindTX:
		d := &dec[0]
		dir := "<-"
		if ev.Kind == KindTX {
			d, dir = &dec[1], "->"
		}
		for p := ev.Payload; len(p) > 0; {
			n, f, ferr := d.Decode(p)
			p = p[n:]
			switch {
			case f != nil:
				fmt.Fprintf(w, "%12.6f %s %-14v seq %-8d t %d µs, %d body bytes\n", t, dir, f.Type, f.Seq, f.TimeUs, len(f.Body))
			case ferr != nil:
				fmt.Fprintf(w, "%12.6f %s damaged frame: %v\n", t, dir, ferr)
			}
		}
	case KindOpen, KindClose, KindSpec, KindKinematics:
		fmt.Fprintf(w, "%12.6f %v %s\n", t, ev.Kind, ev.Payload)
	case KindDropped:
		if len(ev.Payload) >= 8 {
			fmt.Fprintf(w, "%12.6f end: %d events dropped while recording\n", t, le.Uint64(ev.Payload))
		}
	case KindRead:
		var e ReadEvent
		if err := e.Parse(ev.Payload); err != nil {
			return err
		}
		fmt.Fprintf(w, "%12.6f READ   run %v seq %d joints %.6f force %.4f enabled %v stale %v ack %d err %v\n",
			t, e.T, e.State.Seq, e.State.Joint, e.State.Force, e.State.Enabled, e.State.Stale, e.State.AckSeq, e.Err.Error(e.Msg))
	case KindWrite:
		var e WriteEvent
		if err := e.Parse(ev.Payload); err != nil {
			return err
		}
		fmt.Fprintf(w, "%12.6f WRITE  run %v seq %d torque %.6f err %v\n", t, e.T, e.Cmd.Seq, e.Cmd.Torque, e.Err.Error(e.Msg))
	case KindEnable:
		var e EnableEvent
		if err := e.Parse(ev.Payload); err != nil {
			return err
		}
		fmt.Fprintf(w, "%12.6f ENABLE run %v on %v err %v\n", t, e.T, e.On, e.Err.Error(e.Msg))
	case KindFrame:
		var e FrameEvent
		if err := e.Parse(ev.Payload); err != nil {
			return err
		}
		fmt.Fprintf(w, "%12.6f FRAME  run %v seq %d A40[0] %.3f µm A320[0] %.3f µm err %v\n", t, e.T, e.Frame.Seq, e.Frame.A40Um[0], e.Frame.A320Um[0], e.Err.Error(e.Msg))
	case KindStatus:
		var e StatusEvent
		if err := e.Parse(ev.Payload); err != nil {
			return err
		}
		fmt.Fprintf(w, "%12.6f STATUS run %v seq %d ack %d active %v clamped %v err %v\n", t, e.T, e.Status.Seq, e.Status.AckSeq, e.Status.Active, e.Status.Clamped, e.Err.Error(e.Msg))
	case KindDelivered:
		var e DeliveredEvent
		if err := e.Parse(ev.Payload); err != nil {
			return err
		}
		if !e.OK {
			fmt.Fprintf(w, "%12.6f DELIVERED run %v none\n", t, e.T)
			break
		}
		fmt.Fprintf(w, "%12.6f DELIVERED run %v seq %d A40[0] %.3f µm A320[0] %.3f µm\n", t, e.T, e.Frame.Seq, e.Frame.A40Um[0], e.Frame.A320Um[0])
	default:
		fmt.Fprintf(w, "%12.6f %v (%d bytes)\n", t, ev.Kind, len(ev.Payload))
	}
	return nil
}
