package statebufbench

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestBench(t *testing.T) {
	r := Bench()
	if r.PayloadBytes != 256 || r.Rounds != 15 || !(r.PublishNs > 0 && r.ReadNs > 0 && r.ReadUnchangedNs > 0 && r.ConcurrentReadNs > 0) {
		t.Errorf("%+v", r)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"bench":"statebuf"`, `"payload_bytes":256`, `"publish_ns":`, `"read_ns":`, `"read_unchanged_ns":`, `"concurrent_read_ns":`, `"rounds":15`, `"ops_per_round":`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("JSON lacks %s: %s", k, b)
		}
	}
}
