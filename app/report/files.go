package report

import (
	"fmt"
	"io"
	"os"

	"github.com/haptex/haptex/internal/sessionlog"
)

// The report's only file access: readFile and openFile read what a run
// wrote, writeFile writes the page and its figures.

// maxJSON is the largest JSON file the report reads: session.json and
// fit.json are a few hundred kilobytes.
const maxJSON = 64 << 20

// readFile reads a JSON file of at most maxJSON bytes.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxJSON+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > maxJSON {
		return nil, fmt.Errorf("%s: larger than %d MiB, not a haptex record", path, maxJSON>>20)
	}
	return b, nil
}

// openFile opens a CSV table for streaming.
func openFile(path string) (io.ReadCloser, error) { return os.Open(path) }

// writeFile writes data to path atomically, creating its folder.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(dirOf(path), 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := sessionlog.WriteFileAtomic(path, data); err != nil {
		return err
	}
	// A page and its figures are for sharing: readable by all.
	return os.Chmod(path, 0o644)
}
