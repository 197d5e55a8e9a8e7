// Package sessionlog writes a session folder: one CSV file per table of rows
// (a header row, then one row per record; readable by pandas, R and MATLAB
// as they are) and a session.json with the configuration, versions and
// summary statistics.
//
// The folder is new, made by Create with a name no one had; every file in
// it is created new (a table) or replaced whole (a JSON file) through the
// folder's descriptor, without following a symbolic link (safefile).
//
// Loops hand rows over through a lock-free ring per table (Table.Push, no
// lock, no allocation, never blocks); one writer goroutine formats and
// writes them. When the writer falls a whole ring behind, rows are dropped
// and counted, never waited for: a loop is never stalled by the disk.
// When the disk refuses a write (it is full), the table keeps the rows
// that reached it whole, cuts a row it took in part, and counts the rest
// as lost; its file is not written again. Closing a session drains every
// ring and syncs every file.
package sessionlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/haptex/haptex/internal/safefile"
)

// Session is one session folder being written.
type Session struct {
	Dir string

	dir *safefile.Dir

	mu      sync.Mutex // guards tables and started against setup calls
	tables  []drainer
	started bool
	stop    chan struct{}
	done    chan error
	period  time.Duration
}

type drainer interface {
	drain() error
	finish() error
	stats() TableStats
}

// TableStats counts what happened to one table's rows: Rows reached the
// file whole, Dropped found the ring full, Lost came after a write the
// disk refused (Error says why).
type TableStats struct {
	File    string `json:"file"`
	Rows    uint64 `json:"rows"`
	Dropped uint64 `json:"dropped"`
	Lost    uint64 `json:"lost,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Create makes a new session folder under parent, named prefix followed by
// the local start time, with a numeric suffix if that name exists.
// parent, the user's, is resolved as given; the new folder is opened
// without following a symbolic link.
func Create(parent, prefix string) (*Session, error) {
	root, err := safefile.MkdirAll(parent)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	defer root.Close()
	base := prefix + time.Now().Format("20060102-150405")
	name := base
	var d *safefile.Dir
	for i := 2; ; i++ {
		if d, err = root.Mkdir(name); err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || i > 1000 {
			return nil, fmt.Errorf("record: %w", err)
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
	return &Session{Dir: d.Path(), dir: d, stop: make(chan struct{}), done: make(chan error, 1), period: 20 * time.Millisecond}, nil
}

// Table is one CSV file of rows of type T.
type Table[T any] struct {
	ring   *Ring[T]
	file   *os.File
	name   string
	format func(dst []byte, v *T) []byte
	batch  []byte // the rows drained in one pass, written at once
	ends   []int  // where each of batch's rows ends
	size   int64  // bytes in the file, whole rows only
	row    T
	rows   uint64
	lost   uint64
	err    error
}

// NewTable adds a table to the session: file is its name in the folder,
// header its column names, capacity the rows its ring holds (at 1 kHz,
// 16384 rows are 16 s of slack for the writer), and format appends one row
// (without the newline) to dst. Tables are added before Start.
func NewTable[T any](s *Session, file string, header []string, capacity int, format func(dst []byte, v *T) []byte) (*Table[T], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return nil, fmt.Errorf("record: table %s added after the session started", file)
	}
	f, err := s.dir.Create(file)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	t := &Table[T]{ring: NewRing[T](capacity), file: f, name: file, format: format}
	h := strings.Join(header, ",") + "\n"
	if _, err := f.WriteString(h); err != nil {
		f.Close()
		return nil, fmt.Errorf("record: %s: %w", file, err)
	}
	t.size = int64(len(h))
	s.tables = append(s.tables, t)
	return t, nil
}

// Push hands one row to the writer. It never blocks and never allocates;
// it returns false when the ring is full and the row was dropped (counted).
func (t *Table[T]) Push(v *T) bool { return t.ring.Push(v) }

// Dropped returns the rows dropped so far.
func (t *Table[T]) Dropped() uint64 { return t.ring.Dropped() }

// drain writes the rows the ring holds in one write. After a write the
// disk refused, it keeps draining (so the producer sees no back-pressure)
// and counts the rows lost.
func (t *Table[T]) drain() error {
	t.batch, t.ends = t.batch[:0], t.ends[:0]
	for t.ring.Pop(&t.row) {
		if t.err != nil {
			t.lost++
			continue
		}
		t.batch = append(t.format(t.batch, &t.row), '\n')
		t.ends = append(t.ends, len(t.batch))
	}
	if len(t.batch) == 0 {
		return t.err
	}
	n, err := t.file.Write(t.batch)
	whole := 0
	for whole < len(t.ends) && t.ends[whole] <= n {
		whole++
	}
	t.rows += uint64(whole)
	if err == nil {
		t.size += int64(n)
		return nil
	}
	t.lost += uint64(len(t.ends) - whole)
	t.err = fmt.Errorf("record: %s: %w", t.name, err)
	kept := 0 // bytes of the whole rows written
	if whole > 0 {
		kept = t.ends[whole-1]
	}
	t.size += int64(kept)
	if n > kept {
		// The disk took part of a row: cut it, so that the file ends
		// with a whole row (truncating needs no space).
		if e := t.file.Truncate(t.size); e != nil {
			t.err = fmt.Errorf("record: %s: %w (and a row is cut short: %v)", t.name, err, e)
		}
	}
	return t.err
}

func (t *Table[T]) finish() error {
	err := t.drain()
	if e := t.file.Sync(); e != nil && err == nil {
		err = fmt.Errorf("record: %s: %w", t.name, e)
	}
	if e := t.file.Close(); e != nil && err == nil {
		err = fmt.Errorf("record: %s: %w", t.name, e)
	}
	return err
}

func (t *Table[T]) stats() TableStats {
	s := TableStats{File: t.name, Rows: t.rows, Dropped: t.ring.Dropped(), Lost: t.lost}
	if t.err != nil {
		s.Error = t.err.Error()
	}
	return s
}

// Start starts the writer goroutine.
func (s *Session) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return
	}
	s.started = true
	go s.run()
}

func (s *Session) run() {
	tick := time.NewTicker(s.period)
	defer tick.Stop()
	var first error
	for {
		select {
		case <-s.stop:
			for _, t := range s.tables {
				if err := t.finish(); err != nil && first == nil {
					first = err
				}
			}
			s.done <- first
			return
		case <-tick.C:
			for _, t := range s.tables {
				if err := t.drain(); err != nil && first == nil {
					first = err
				}
			}
		}
	}
}

// Close stops the writer after draining every table, and syncs and
// closes the files. Producers must have stopped pushing. WriteFile still
// works after Close.
func (s *Session) Close() error {
	s.mu.Lock()
	started := s.started
	s.started = true
	s.mu.Unlock()
	if !started {
		var first error
		for _, t := range s.tables {
			if err := t.finish(); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	close(s.stop)
	return <-s.done
}

// Stats returns the row counts of every table. Call it after Close.
func (s *Session) Stats() []TableStats {
	out := make([]TableStats, len(s.tables))
	for i, t := range s.tables {
		out[i] = t.stats()
	}
	return out
}

// WriteFile writes data whole into the session folder as name (a
// temporary file renamed, no symbolic link followed).
func (s *Session) WriteFile(name string, data []byte) error {
	if err := s.dir.WriteFile(name, data); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

// Release closes the session folder's descriptor; call it once nothing
// more is written (after Close and the last WriteFile).
func (s *Session) Release() error { return s.dir.Close() }

// AppendFloat appends v in the shortest form that reads back to the same
// float64, so a recorded value replays bit for bit.
func AppendFloat(dst []byte, v float64) []byte { return strconv.AppendFloat(dst, v, 'g', -1, 64) }

// AppendFloats appends the values separated by commas, with a leading comma.
func AppendFloats(dst []byte, vs ...float64) []byte {
	for _, v := range vs {
		dst = append(dst, ',')
		dst = AppendFloat(dst, v)
	}
	return dst
}
