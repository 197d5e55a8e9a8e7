package report

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/haptex/haptex/internal/safefile"
)

// The report's only file access: readFile and openFile read what a run
// wrote, writeFile writes the page and its figures; all through
// internal/safefile, like every other file haptex touches.

// maxJSON is the largest JSON file the report reads: session.json and
// fit.json are a few hundred kilobytes.
const maxJSON = 64 << 20

// maxTable is the largest CSV table the report streams: a long session's
// haptics.csv holds a row per millisecond.
const maxTable = 8 << 30

// readFile reads a JSON file of at most maxJSON bytes within
// safefile's structure limits.
func readFile(path string) ([]byte, error) {
	return safefile.ReadJSON(path, maxJSON, safefile.JSONLimits{})
}

// openFile opens a CSV table for streaming.
func openFile(path string) (io.ReadCloser, error) { return safefile.Open(path, maxTable) }

// writeFile writes data to path whole (a temporary file renamed), creating
// its folder and following no symbolic link inside it.
func writeFile(path string, data []byte) error {
	d, err := safefile.MkdirAll(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer d.Close()
	if err := d.WriteFile(filepath.Base(path), data); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
