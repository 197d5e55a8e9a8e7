package record

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/haptex/haptex/internal/safefile"
	"github.com/haptex/haptex/internal/safefile/safefiletest"
)

// A FIFO, /dev/zero or a folder given as a recording is refused at once
// (haptex replay and the dump read them).
func TestHostileRecordings(t *testing.T) {
	var special []safefiletest.Hostile
	for _, h := range safefiletest.TOML() {
		if h.Special != "" {
			special = append(special, h)
		}
	}
	safefiletest.Refused(t, special, func(path string) error {
		_, err := ReadFile(path, func(Event) error { return nil })
		return err
	})
	safefiletest.Refused(t, special, func(path string) error { return Dump(io.Discard, path) })
}

// The recordings of a session folder are never written through a
// symbolic link: not one planted at devices/, nor at a recording's name.
func TestRecordingsDoNotFollowLinks(t *testing.T) {
	for _, rel := range []string{"devices", "devices/thumb-exo.hxr"} {
		dir := t.TempDir()
		victim := safefiletest.Plant(t, filepath.Join(dir, rel), rel == "devices")
		s, err := NewSession(dir, Options{})
		if err == nil {
			_, err = s.Recorder("thumb-exo", "exoskeleton", nil)
			s.Close()
		}
		if !errors.Is(err, safefile.ErrSymlink) && !errors.Is(err, os.ErrExist) {
			t.Errorf("%s: %v", rel, err)
		}
		safefiletest.Untouched(t, rel, victim)
	}
}
