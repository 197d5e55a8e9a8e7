package safefile_test

import (
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/haptex/haptex/internal/safefile"
	"github.com/haptex/haptex/internal/safefile/safefiletest"
)

func TestHostileJSONRefused(t *testing.T) {
	safefiletest.Refused(t, safefiletest.JSON(), func(path string) error {
		_, err := safefile.ReadJSON(path, 1<<20, safefile.JSONLimits{})
		return err
	})
}

func TestCheckJSONLimits(t *testing.T) {
	lim := safefile.JSONLimits{Depth: 3, Keys: 3, KeyLen: 4, Values: 6}
	for _, tc := range []struct {
		name, doc string
		want      error
	}{
		{"depth at the limit", `[[{"a":1}]]`, nil},
		{"depth past the limit", `[[[[1]]]]`, safefile.ErrTooDeep},
		{"keys at the limit", `{"a":1,"b":2,"c":3}`, nil},
		{"keys past the limit", `{"a":1,"b":2,"c":3,"d":4}`, safefile.ErrTooManyKeys},
		{"key at its length", `{"abcd" : 1}`, nil},
		{"key past its length", `{"abcde":1}`, safefile.ErrKeyTooLong},
		{"a long value is no key", `{"a":"abcdefgh"}`, nil},
		{"values at the limit", `[1,2,3,4,5]`, nil},
		{"values past the limit", `[1,2,3,4,5,6]`, safefile.ErrTooManyValues},
		{"nothing counts in strings", `["[[[[{:,:,:,:,:,\"]]]]"]`, nil},
	} {
		err := safefile.CheckJSON("t.json", []byte(tc.doc), lim)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

// FuzzCheckJSON: whatever CheckJSON passes decodes within the memory goal.
func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `[[[[]]]]`, `"\"[["`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := safefile.CheckJSON("fuzz.json", data, safefile.JSONLimits{})
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("%q", err)
			}
			return
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var v any
		json.Unmarshal(data, &v)
		runtime.ReadMemStats(&after)
		if a := after.TotalAlloc - before.TotalAlloc; a > safefiletest.MaxAlloc {
			t.Fatalf("passed a %d-byte file that decoding allocates %d bytes for", len(data), a)
		}
	})
}
