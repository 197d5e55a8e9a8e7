package emu

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/haptex/haptex/internal/safefile"
)

// An emulator started with Config.Announce tells other haptex processes
// that it runs: it writes Announcement as JSON to RunDir()/PID-N.json and
// serves its stands on the Unix socket RunDir()/PID-N.sock, and removes
// both when it is closed. haptex devices list probes the ports of every
// announced emulator; haptex calib ... -devices finds, for a port in its
// devices file, the emulator that serves it and operates that device's
// stand through the socket. An emulator killed outright leaves its files:
// Announced skips (and removes) those whose process is gone.

// Announcement is what a running emulator announces.
type Announcement struct {
	PID         int       `json:"pid"`
	Started     time.Time `json:"started"`
	DevicesFile string    `json:"devices_file"`
	Socket      string    `json:"stand_socket"`
	Stand       bool      `json:"stand"`  // the exoskeletons are on their calibration stands
	Errors      bool      `json:"errors"` // the exoskeletons carry the calibration twin's errors
	Ports       []Port    `json:"ports"`
	file        string
}

// RunDir is the folder where emulators announce themselves:
// $XDG_RUNTIME_DIR/haptex/emu, or /run/haptex/emu for root without
// XDG_RUNTIME_DIR, or $TMPDIR/haptex-UID/emu.
func RunDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "haptex", "emu")
	}
	if os.Geteuid() == 0 {
		return "/run/haptex/emu"
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("haptex-%d", os.Geteuid()), "emu")
}

// maxAnnouncement bounds an announcement file (a few hundred bytes).
const maxAnnouncement = 64 << 10

// runDir makes the run folder, private to the user, and checks that the
// folders haptex made or would write into are the user's own folders, not
// links: a folder in a shared /tmp could have been made by someone else.
func runDir() (string, error) {
	dir := RunDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("emu: run folder: %w", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Lstat(d)
		if err != nil {
			return "", fmt.Errorf("emu: run folder: %w", err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !fi.IsDir() || !ok || int(st.Uid) != os.Geteuid() || fi.Mode().Perm()&0o022 != 0 {
			return "", fmt.Errorf("emu: run folder %s is not a folder of this user that only it may write to", d)
		}
		if strings.HasPrefix(filepath.Base(d), "haptex") {
			return dir, nil
		}
	}
}

// announcement is a running emulator's presence in the run folder.
type announcement struct {
	dir   *safefile.Dir
	name  string
	sock  net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]bool
}

var announced atomic.Int64 // emulators this process has announced

func (e *Emulator) startAnnounce(cfg Config) error {
	dir, err := runDir()
	if err != nil {
		return err
	}
	root, err := safefile.OpenDir(dir)
	if err != nil {
		return fmt.Errorf("emu: run folder: %w", err)
	}
	name := fmt.Sprintf("%d-%d", os.Getpid(), announced.Add(1))
	sockPath := root.Join(name + ".sock")
	os.Remove(sockPath) // a stale one of a process with our pid, killed
	ln, err := net.Listen("unix", sockPath)
	if err != nil {
		root.Close()
		return fmt.Errorf("emu: stand socket: %w", err)
	}
	a := &announcement{dir: root, name: name, sock: ln, conns: map[net.Conn]bool{}}
	e.announce = a
	ann := Announcement{PID: os.Getpid(), Started: e.start.UTC(), DevicesFile: e.file, Socket: sockPath,
		Stand: cfg.Stand, Errors: cfg.Errors, Ports: e.Ports()}
	b, err := json.MarshalIndent(ann, "", "  ")
	if err == nil {
		err = root.WriteFile(name+".json", append(b, '\n'))
	}
	if err != nil {
		e.stopAnnounce()
		return fmt.Errorf("emu: announce: %w", err)
	}
	a.wg.Add(1)
	go a.serve(e)
	return nil
}

// stopAnnounce removes the announcement and closes the stand socket.
func (e *Emulator) stopAnnounce() {
	a := e.announce
	if a == nil {
		return
	}
	e.announce = nil
	a.dir.Remove(a.name + ".json")
	a.sock.Close()
	a.dir.Remove(a.name + ".sock")
	a.mu.Lock()
	for c := range a.conns {
		c.Close()
	}
	a.mu.Unlock()
	a.wg.Wait()
	a.dir.Close()
}

// Announced returns the emulators announced in RunDir() whose process
// still runs, oldest first; the files of the others are removed.
func Announced() ([]Announcement, error) {
	dir := RunDir()
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Announcement
	for _, n := range names {
		b, err := safefile.ReadJSON(n, maxAnnouncement, safefile.JSONLimits{})
		if err != nil {
			continue
		}
		var a Announcement
		if json.Unmarshal(b, &a) != nil || a.PID <= 0 {
			continue
		}
		if err := unix.Kill(a.PID, 0); errors.Is(err, unix.ESRCH) {
			os.Remove(n)
			os.Remove(strings.TrimSuffix(n, ".json") + ".sock")
			continue
		}
		a.file = n
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out, nil
}

// FindPort returns the announced emulator that serves the serial port
// path (its stable link, or the pseudo-terminal it points to) and the
// port's description.
func FindPort(path string) (Announcement, Port, bool) {
	as, err := Announced()
	if err != nil {
		return Announcement{}, Port{}, false
	}
	want := resolve(path)
	for _, a := range as {
		for _, p := range a.Ports {
			if resolve(p.Path) == want {
				return a, p, true
			}
		}
	}
	return Announcement{}, Port{}, false
}

func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// standRequest is one line a stand client sends; standReply the line it
// gets back.
type standRequest struct {
	Op     string     `json:"op"` // "load", "jig" or "vibrometer"
	Device string     `json:"device"`
	LoadN  [3]float64 `json:"load_n,omitempty"`
	PointM [3]float64 `json:"point_m,omitempty"`
	Pin    int        `json:"pin,omitempty"`
	FreqHz int        `json:"freq_hz,omitempty"`
}

type standReply struct {
	AmplitudeUm float64 `json:"amplitude_um,omitempty"`
	Error       string  `json:"error,omitempty"`
}

// maxStandLine bounds a request line.
const maxStandLine = 4096

func (a *announcement) serve(e *Emulator) {
	defer a.wg.Done()
	for {
		c, err := a.sock.Accept()
		if err != nil {
			return
		}
		a.mu.Lock()
		a.conns[c] = true
		a.mu.Unlock()
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			defer func() {
				a.mu.Lock()
				delete(a.conns, c)
				a.mu.Unlock()
				c.Close()
			}()
			serveStand(e, c)
		}()
	}
}

// serveStand answers one client's requests, one line each, until it
// hangs up or sends a line that is not a request.
func serveStand(e *Emulator, c net.Conn) {
	r := bufio.NewReaderSize(c, maxStandLine)
	enc := json.NewEncoder(c)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				enc.Encode(standReply{Error: fmt.Sprintf("request longer than %d bytes", maxStandLine)})
			}
			return
		}
		var req standRequest
		var rep standReply
		if err := json.Unmarshal(line, &req); err != nil {
			enc.Encode(standReply{Error: "not a stand request: " + err.Error()})
			return
		}
		switch req.Op {
		case "load":
			err = e.StandLoad(req.Device, req.LoadN)
		case "jig":
			err = e.StandJig(req.Device, req.PointM)
		case "vibrometer":
			rep.AmplitudeUm, err = e.Vibrometer(req.Device, req.Pin, req.FreqHz)
		default:
			err = fmt.Errorf("unknown stand operation %q (load, jig, vibrometer)", req.Op)
		}
		if err != nil {
			rep.Error = err.Error()
		}
		if enc.Encode(rep) != nil {
			return
		}
	}
}

// Stand is a client of an emulator's stands: what an operator's hands do
// on a real calibration stand, done over the emulator's socket.
type Stand struct {
	mu sync.Mutex
	c  net.Conn
	r  *bufio.Reader
}

// DialStand connects to the stand socket of an announced emulator.
func DialStand(socket string) (*Stand, error) {
	c, err := net.DialTimeout("unix", socket, 2*time.Second)
	if err != nil {
		return nil, fmt.Errorf("emu: stand: %w", err)
	}
	return &Stand{c: c, r: bufio.NewReaderSize(c, maxStandLine)}, nil
}

func (s *Stand) do(req standRequest) (standReply, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rep standReply
	b, err := json.Marshal(req)
	if err != nil {
		return rep, err
	}
	s.c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := s.c.Write(append(b, '\n')); err != nil {
		return rep, fmt.Errorf("emu: stand: %w", err)
	}
	line, err := s.r.ReadSlice('\n')
	if err != nil {
		return rep, fmt.Errorf("emu: stand: %w", err)
	}
	if err := json.Unmarshal(line, &rep); err != nil {
		return rep, fmt.Errorf("emu: stand: %w", err)
	}
	if rep.Error != "" {
		return rep, fmt.Errorf("emulated stand: %s", rep.Error)
	}
	return rep, nil
}

// Load hangs a load on the named exoskeleton's pad (Emulator.StandLoad).
func (s *Stand) Load(device string, loadN [3]float64) error {
	_, err := s.do(standRequest{Op: "load", Device: device, LoadN: loadN})
	return err
}

// Jig has the jig hold the named exoskeleton's pad at a point
// (Emulator.StandJig).
func (s *Stand) Jig(device string, pointM [3]float64) error {
	_, err := s.do(standRequest{Op: "jig", Device: device, PointM: pointM})
	return err
}

// Vibrometer measures a pin (Emulator.Vibrometer).
func (s *Stand) Vibrometer(device string, pin, freqHz int) (float64, error) {
	rep, err := s.do(standRequest{Op: "vibrometer", Device: device, Pin: pin, FreqHz: freqHz})
	return rep.AmplitudeUm, err
}

// Close hangs up.
func (s *Stand) Close() error { return s.c.Close() }
