package kes

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/haptex/haptex/internal/safefile/safefiletest"
)

// Every hostile fabric file (nested 20,000 deep, a 50,000-part dotted
// key, 200,000 unknown tables, /dev/zero, a FIFO) is refused by LoadFile
// (haptex fabric check FILE) and by the user library (haptex fabric show
// NAME), in little memory, with one line naming the file and the limit.
func TestHostileFabricFiles(t *testing.T) {
	safefiletest.Refused(t, safefiletest.TOML(), func(path string) error {
		_, err := LoadFile(path)
		return err
	})
}

// A misspelt table is reported once, not once per key in it, and the
// check is linear: 2,000 unknown tables of two keys each give 2,000
// problems.
func TestUnknownTablesReportedOnce(t *testing.T) {
	ex, err := os.ReadFile("testdata/example.toml")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(ex)
	for i := range 2000 {
		fmt.Fprintf(&b, "\n[unknown%d]\na = 1\nb = 2\n", i)
	}
	_, err = Parse([]byte(b.String()), "unknown.toml")
	var e *Error
	if !errors.As(err, &e) || len(e.Problems) != 2000 || e.Problems[0].Field != "unknown0" {
		t.Fatalf("%v", err)
	}
}
