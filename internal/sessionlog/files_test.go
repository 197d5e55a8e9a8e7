package sessionlog

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/haptex/haptex/internal/safefile/safefiletest"
)

// No file of a session folder is written through a symbolic link: a link
// planted at the folder's name makes Create take the next name; one
// planted at a table's name fails the table; one at session.json is
// replaced by the file.
func TestSessionFilesDoNotFollowLinks(t *testing.T) {
	parent := t.TempDir()
	victimDir := t.TempDir()
	now := time.Now()
	for _, at := range []time.Time{now, now.Add(time.Second), now.Add(2 * time.Second)} {
		os.Symlink(victimDir, filepath.Join(parent, "s-"+at.Format("20060102-150405")))
	}
	s, err := Create(parent, "s-")
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(s.Dir); err != nil || !st.IsDir() {
		t.Fatalf("session folder %s: %v, %v", s.Dir, st.Mode(), err)
	}
	csvVictim := safefiletest.Plant(t, filepath.Join(s.Dir, "rows.csv"), false)
	jsonVictim := safefiletest.Plant(t, filepath.Join(s.Dir, "session.json"), false)
	if _, err := NewTable(s, "rows.csv", []string{"t"}, 16, formatRow); !errors.Is(err, fs.ErrExist) {
		t.Errorf("table at a link: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteFile("session.json", []byte(`{"x": 1}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(); err != nil {
		t.Fatal(err)
	}
	safefiletest.Untouched(t, "rows.csv", csvVictim)
	safefiletest.Replaced(t, filepath.Join(s.Dir, "session.json"), jsonVictim)
	if ents, _ := os.ReadDir(victimDir); len(ents) != 0 {
		t.Errorf("wrote into the linked folder: %v", ents)
	}
}
