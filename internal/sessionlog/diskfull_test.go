package sessionlog

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTableOnAFullDisk writes a table onto a small tmpfs (it needs root)
// that fills partway through: the stats count as rows only those the
// file holds whole, the rest as lost with the disk's error, and the file
// ends with a whole row (the one the disk took in part is cut). Before,
// the rows a buffered writer took were counted whether or not the disk
// took them, and the file ended in the middle of a row.
func TestTableOnAFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() {
		if unix.Unmount(dir, 0) != nil {
			unix.Unmount(dir, unix.MNT_DETACH) // a file left open by a failed test
		}
	})
	s, err := Create(dir, "full-")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := NewTable(s, "rows.csv", []string{"t", "x", "y", "z"}, 1<<14, formatRow)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	const n = 10000 // about 600 kB of rows
	for i := range n {
		r := row{T: float64(i) * 1e-3, X: [3]float64{1.0 / float64(i+1), -float64(i), 1e-300 * float64(i)}}
		for !tab.Push(&r) {
			// The ring is full: wait for the writer rather than drop, so
			// that every row meets the disk.
			unix.Nanosleep(&unix.Timespec{Nsec: 1e6}, nil)
		}
	}
	err = s.Close()
	defer s.Release()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("closing a session whose disk filled: %v", err)
	}
	st := s.Stats()[0]
	t.Logf("%+v", st)
	if st.Rows == 0 || st.Lost == 0 || st.Rows+st.Lost+st.Dropped != n || st.Error == "" {
		t.Fatalf("stats %+v of %d rows", st, n)
	}
	f, err := os.Open(filepath.Join(s.Dir, "rows.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("the table on the full disk does not read as CSV: %v", err)
	}
	if uint64(len(recs)) != st.Rows+1 {
		t.Fatalf("the file holds %d rows, the stats say %d", len(recs)-1, st.Rows)
	}
	for i, rec := range recs[1:] {
		if len(rec) != 4 {
			t.Fatalf("row %d has %d fields", i, len(rec))
		}
		if v, err := strconv.ParseFloat(rec[0], 64); err != nil || v != float64(i)*1e-3 {
			t.Fatalf("row %d: t = %q", i, rec[0])
		}
	}
}
