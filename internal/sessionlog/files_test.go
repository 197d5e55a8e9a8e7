package sessionlog

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func victimFile(t *testing.T) string {
	t.Helper()
	v := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(v, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	return v
}

func precious(t *testing.T, what, victim string) {
	t.Helper()
	if b, err := os.ReadFile(victim); err != nil || string(b) != "precious" {
		t.Errorf("%s: the link's target was written: %q, %v", what, b, err)
	}
}

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
	csvVictim, jsonVictim := victimFile(t), victimFile(t)
	os.Symlink(csvVictim, filepath.Join(s.Dir, "rows.csv"))
	os.Symlink(jsonVictim, filepath.Join(s.Dir, "session.json"))
	if _, err := NewTable(s, "rows.csv", []string{"t"}, 16, formatRow); !errors.Is(err, fs.ErrExist) {
		t.Errorf("table at a link: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteJSON("session.json", map[string]int{"x": 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(); err != nil {
		t.Fatal(err)
	}
	precious(t, "rows.csv", csvVictim)
	precious(t, "session.json", jsonVictim)
	if st, err := os.Lstat(filepath.Join(s.Dir, "session.json")); err != nil || !st.Mode().IsRegular() {
		t.Errorf("session.json: %v, %v", st.Mode(), err)
	}
	if ents, _ := os.ReadDir(victimDir); len(ents) != 0 {
		t.Errorf("wrote into the linked folder: %v", ents)
	}
}
