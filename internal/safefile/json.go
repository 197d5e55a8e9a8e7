package safefile

import "fmt"

// JSONLimits bound the structure of a JSON file. A zero field takes its
// default (DefaultJSON).
type JSONLimits struct {
	Depth  int // nesting of arrays and objects
	Keys   int // object members in the file
	KeyLen int // bytes of one member name, escapes as written
	Values int // values: members and array elements
}

// DefaultJSON is generous for haptex's calibration files and session
// records (depth at most 6, a few hundred members) and keeps
// encoding/json within a few tens of megabytes.
var DefaultJSON = JSONLimits{Depth: 32, Keys: 10_000, KeyLen: 256, Values: 200_000}

func (l JSONLimits) withDefaults() JSONLimits {
	d := DefaultJSON
	return JSONLimits{Depth: or(l.Depth, d.Depth), Keys: or(l.Keys, d.Keys), KeyLen: or(l.KeyLen, d.KeyLen), Values: or(l.Values, d.Values)}
}

// CheckJSON checks data, the JSON file path, against lim in one pass:
// time linear in the size, no allocation. Like CheckTOML it over-counts
// rather than under-counts and leaves syntax to the decoder. The error is
// an *Error naming the line and the limit.
func CheckJSON(path string, data []byte, lim JSONLimits) error {
	lim = lim.withDefaults()
	line, depth, keys, values := 1, 0, 0, 0
	strLen := -1 // length of the string just closed, -1 after anything else
	fail := func(err error, format string, args ...any) error {
		return &Error{Path: path, Line: line, Err: err, Detail: fmt.Sprintf(format, args...)}
	}
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			line++
			continue
		case ' ', '\t', '\r':
			continue
		case '"':
			start := i
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			strLen = i - start - 1
			continue
		case '[', '{':
			if depth++; depth > lim.Depth {
				return fail(ErrTooDeep, "nested deeper than the limit of %d levels", lim.Depth)
			}
			// The container and its first element or member.
			if values += 2; values > lim.Values {
				return fail(ErrTooManyValues, "more than the limit of %d values", lim.Values)
			}
		case ']', '}':
			depth--
		case ',':
			if values++; values > lim.Values {
				return fail(ErrTooManyValues, "more than the limit of %d values", lim.Values)
			}
		case ':':
			if keys++; keys > lim.Keys {
				return fail(ErrTooManyKeys, "more than the limit of %d keys", lim.Keys)
			}
			if strLen > lim.KeyLen {
				return fail(ErrKeyTooLong, "a key longer than the limit of %d bytes", lim.KeyLen)
			}
		}
		strLen = -1
	}
	return nil
}

// ReadJSON reads the regular file path within max bytes and checks its
// structure against lim (CheckJSON).
func ReadJSON(path string, max int64, lim JSONLimits) ([]byte, error) {
	return readChecked(path, max, func(data []byte) error { return CheckJSON(path, data, lim) })
}
