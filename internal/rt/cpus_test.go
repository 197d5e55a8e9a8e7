package rt

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		bad  bool
	}{
		{in: "0\n", want: []int{0}},
		{in: "0-1", want: []int{0, 1}},
		{in: "0,4", want: []int{0, 4}},
		{in: "0-2,8,10-11\n", want: []int{0, 1, 2, 8, 10, 11}},
		{in: "", want: nil},
		{in: "3-1", bad: true},
		{in: "-1", bad: true},
		{in: "1-", bad: true},
		{in: "a", bad: true},
		{in: "0,,1", bad: true},
		{in: "8192", bad: true},
	} {
		got, err := parseCPUList(c.in)
		if (err != nil) != c.bad || !slices.Equal(got, c.want) {
			t.Errorf("parseCPUList(%q) = %v, %v", c.in, got, err)
		}
	}
}

// Any input gives an error or a list of cores in range that formats back
// to itself once each part is written out in full.
func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0", "0-3,8", "1,3-4\n", "", "5-2", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := parseCPUList(s)
		if err != nil {
			return
		}
		var parts []string
		for _, c := range cpus {
			if c < 0 || c >= maxCPU {
				t.Fatalf("%q: core %d out of range", s, c)
			}
			parts = append(parts, strconv.Itoa(c))
		}
		again, err := parseCPUList(strings.Join(parts, ","))
		if err != nil || !slices.Equal(again, cpus) {
			t.Fatalf("%q: %v, written out and parsed again %v, %v", s, cpus, again, err)
		}
	})
}

func TestPickCPUs(t *testing.T) {
	// Four cores with two hardware threads each, numbered as Linux often
	// does on Intel: core k has threads k and k+4; or adjacently.
	split := func(c int) []int { return []int{c % 4, c%4 + 4} }
	adjacent := func(c int) []int { return []int{c &^ 1, c | 1} }
	unknown := func(int) []int { return nil }
	for _, c := range []struct {
		name      string
		allowed   []int
		siblings  func(int) []int
		own, othr int
		ok        bool
	}{
		{"two cores", []int{0, 1}, unknown, 1, 0, true},
		{"split siblings", []int{0, 1, 2, 3, 4, 5, 6, 7}, split, 7, 6, true},
		{"adjacent siblings", []int{0, 1, 2, 3, 4, 5, 6, 7}, adjacent, 7, 5, true},
		{"only siblings left", []int{3, 7}, split, 7, 3, true},
		{"one core", []int{2}, unknown, 2, -1, false},
	} {
		own, other, ok := pickCPUs(c.allowed, c.siblings)
		if own != c.own || other != c.othr || ok != c.ok {
			t.Errorf("%s: %d, %d, %v; want %d, %d, %v", c.name, own, other, ok, c.own, c.othr, c.ok)
		}
	}
}
