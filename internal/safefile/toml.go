package safefile

import "fmt"

// TOMLLimits bound the structure of a TOML file. A zero field takes its
// default (DefaultTOML).
type TOMLLimits struct {
	// Depth bounds the nesting of a value: the parts of its table header,
	// the parts of its dotted key, and every array and inline table
	// around it (a.b = [{c = 1}] puts c at depth 5).
	Depth int
	// Keys bounds the key parts in the file: every part of every key and
	// table header (a.b.c = 1 is three).
	Keys int
	// KeyLen bounds the bytes of one key or table header, quotes and the
	// spaces between dotted parts included.
	KeyLen int
	// Tables bounds the [table] and [[array]] headers and inline tables.
	Tables int
	// Values bounds the values: one per key = value and one per array
	// element.
	Values int
}

// DefaultTOML is generous for every file haptex reads (a fabric file has
// depth 5, about 240 key parts, 60 tables and 210 values) and keeps
// BurntSushi/toml within about 50 MB and well under a second on the
// largest file it allows.
var DefaultTOML = TOMLLimits{Depth: 32, Keys: 10_000, KeyLen: 256, Tables: 4096, Values: 200_000}

func (l TOMLLimits) withDefaults() TOMLLimits {
	d := DefaultTOML
	return TOMLLimits{Depth: or(l.Depth, d.Depth), Keys: or(l.Keys, d.Keys), KeyLen: or(l.KeyLen, d.KeyLen),
		Tables: or(l.Tables, d.Tables), Values: or(l.Values, d.Values)}
}

// or is v, or d when v is not set.
func or(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// tomlScan is the state of one CheckTOML pass.
type tomlScan struct {
	lim  TOMLLimits
	path string
	data []byte
	i    int
	line int

	// Open arrays and inline tables: their kind ('[' or '{') and depth.
	kinds  []byte
	depths []int

	inKey    bool // reading a key (at a line start, after '{' or ',' in an inline table)
	keyFirst int  // offset of the key's first byte; -1 before it
	keyParts int
	base     int // depth of the table the keys belong to
	valDepth int // depth of the value being read
	header   int // parts of the current table header

	keys, tables, values int
	maxDepth             int
}

// CheckTOML checks data, the TOML file path, against lim in one pass over
// its bytes: time linear in the size, memory proportional to lim.Depth.
// It over-counts rather than under-counts, so that a file it passes costs
// a decoder no more than the limits allow; a file that is not TOML at all
// may pass, for the decoder to refuse. The error is an *Error naming the
// line and the limit.
func CheckTOML(path string, data []byte, lim TOMLLimits) error {
	_, err := scanTOML(path, data, lim)
	return err
}

func scanTOML(path string, data []byte, lim TOMLLimits) (*tomlScan, error) {
	s := &tomlScan{lim: lim.withDefaults(), path: path, data: data, line: 1}
	s.kinds = make([]byte, 0, s.lim.Depth)
	s.depths = make([]int, 0, s.lim.Depth)
	s.newKey()
	return s, s.run()
}

func (s *tomlScan) fail(err error, format string, args ...any) error {
	return &Error{Path: s.path, Line: s.line, Err: err, Detail: fmt.Sprintf(format, args...)}
}

func (s *tomlScan) newKey() {
	s.inKey, s.keyFirst, s.keyParts = true, -1, 1
}

func (s *tomlScan) checkDepth(d int) error {
	s.maxDepth = max(s.maxDepth, d)
	if d > s.lim.Depth {
		return s.fail(ErrTooDeep, "nested deeper than the limit of %d levels (tables, dotted keys, arrays and inline tables)", s.lim.Depth)
	}
	return nil
}

func (s *tomlScan) checkKeyLen(first int) error {
	if first >= 0 && s.i-first > s.lim.KeyLen {
		return s.fail(ErrKeyTooLong, "a key longer than the limit of %d bytes", s.lim.KeyLen)
	}
	return nil
}

func (s *tomlScan) addKeys(n int) error {
	s.keys += n
	if s.keys > s.lim.Keys {
		return s.fail(ErrTooManyKeys, "more than the limit of %d keys (each part of a dotted key counts)", s.lim.Keys)
	}
	return nil
}

func (s *tomlScan) addTable() error {
	s.tables++
	if s.tables > s.lim.Tables {
		return s.fail(ErrTooManyTables, "more than the limit of %d tables (headers and inline tables)", s.lim.Tables)
	}
	return nil
}

func (s *tomlScan) addValue() error {
	s.values++
	if s.values > s.lim.Values {
		return s.fail(ErrTooManyValues, "more than the limit of %d values (array elements count)", s.lim.Values)
	}
	return nil
}

func (s *tomlScan) top() byte {
	if len(s.kinds) == 0 {
		return 0
	}
	return s.kinds[len(s.kinds)-1]
}

func (s *tomlScan) run() error {
	atLineStart := true
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch c {
		case ' ', '\t', '\r':
			s.i++
			continue
		case '\n':
			s.line++
			s.i++
			if len(s.kinds) == 0 {
				atLineStart = true
				s.newKey()
			}
			continue
		case '#':
			for s.i < len(s.data) && s.data[s.i] != '\n' {
				s.i++
			}
			continue
		}
		lineStart := atLineStart
		atLineStart = false
		if s.inKey && s.keyFirst < 0 {
			s.keyFirst = s.i
		}
		var err error
		switch {
		case c == '"' || c == '\'':
			s.skipString()
			if s.inKey {
				err = s.checkKeyLen(s.keyFirst)
			}
		case c == '[' && lineStart && len(s.kinds) == 0:
			err = s.tableHeader()
		case s.inKey:
			err = s.keyByte(c)
		default:
			err = s.valueByte(c)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// keyByte handles a byte of a key.
func (s *tomlScan) keyByte(c byte) error {
	switch c {
	case '.':
		s.keyParts++
		if err := s.checkDepth(s.base + s.keyParts); err != nil {
			return err
		}
	case '=':
		s.i++
		if err := s.checkDepth(s.base + s.keyParts); err != nil {
			return err
		}
		if err := s.addKeys(s.keyParts); err != nil {
			return err
		}
		s.inKey = false
		s.valDepth = s.base + s.keyParts
		return s.addValue()
	case '[', '{', ']', '}', ',':
		// '}' ends an empty inline table or follows a trailing comma; the
		// others are not TOML here, but are counted as the decoder would
		// read them if it went on.
		s.inKey = false
		s.valDepth = s.base + s.keyParts
		return s.valueByte(c)
	}
	s.i++
	return s.checkKeyLen(s.keyFirst)
}

// valueByte handles a byte of a value.
func (s *tomlScan) valueByte(c byte) error {
	s.i++
	switch c {
	case '[', '{':
		d := s.valDepth + 1
		if err := s.checkDepth(d); err != nil {
			return err
		}
		s.kinds = append(s.kinds, c)
		s.depths = append(s.depths, d)
		if c == '{' {
			s.base = d
			s.newKey()
			return s.addTable()
		}
		s.valDepth = d
		return s.addValue() // the first element, if any
	case ']', '}':
		if n := len(s.kinds); n > 0 {
			s.kinds, s.depths = s.kinds[:n-1], s.depths[:n-1]
		}
		s.inKey = false
		s.restore()
	case ',':
		if s.top() == '{' {
			s.newKey()
			return nil
		}
		return s.addValue()
	}
	return nil
}

// restore sets the depths after an array or inline table closed: back in
// the container around it, or in the table of the current header.
func (s *tomlScan) restore() {
	if n := len(s.depths); n > 0 {
		s.valDepth = s.depths[n-1]
		if s.kinds[n-1] == '{' {
			s.base = s.depths[n-1]
		}
		return
	}
	s.base = s.header
	s.valDepth = s.header
}

// tableHeader reads [a.b] or [[a.b]] at s.i.
func (s *tomlScan) tableHeader() error {
	first := s.i
	s.i++
	if s.i < len(s.data) && s.data[s.i] == '[' {
		s.i++
	}
	parts := 1
	for s.i < len(s.data) {
		c := s.data[s.i]
		if c == ']' || c == '\n' {
			break
		}
		switch c {
		case '"', '\'':
			s.skipString()
		case '.':
			parts++
			if err := s.checkDepth(parts); err != nil {
				return err
			}
			s.i++
		default:
			s.i++
		}
		if err := s.checkKeyLen(first); err != nil {
			return err
		}
	}
	for s.i < len(s.data) && s.data[s.i] == ']' {
		s.i++
	}
	if err := s.checkDepth(parts); err != nil {
		return err
	}
	if err := s.addKeys(parts); err != nil {
		return err
	}
	s.header, s.base, s.valDepth = parts, parts, parts
	s.newKey()
	return s.addTable()
}

// skipString moves past the string starting at s.i: basic or literal,
// single- or multi-line. An unterminated single-line string ends at the
// line's end (the decoder refuses it there).
func (s *tomlScan) skipString() {
	q := s.data[s.i]
	d := s.data
	if s.i+2 < len(d) && d[s.i+1] == q && d[s.i+2] == q {
		s.i += 3
		for s.i < len(d) {
			switch c := d[s.i]; {
			case c == '\\' && q == '"':
				if s.i+1 < len(d) && d[s.i+1] == '\n' {
					s.line++
				}
				s.i += 2
			case c == '\n':
				s.line++
				s.i++
			case c == q && s.i+2 < len(d) && d[s.i+1] == q && d[s.i+2] == q:
				s.i += 3
				// Up to two quotes of the content may touch the delimiter.
				for k := 0; k < 2 && s.i < len(d) && d[s.i] == q; k++ {
					s.i++
				}
				return
			default:
				s.i++
			}
		}
		s.i = min(s.i, len(d))
		return
	}
	s.i++
	for s.i < len(d) {
		switch c := d[s.i]; {
		case c == '\\' && q == '"' && s.i+1 < len(d) && d[s.i+1] != '\n':
			s.i += 2
		case c == q:
			s.i++
			return
		case c == '\n':
			return
		default:
			s.i++
		}
	}
}

// ReadTOML reads the regular file path within max bytes and checks its
// structure against lim (CheckTOML).
func ReadTOML(path string, max int64, lim TOMLLimits) ([]byte, error) {
	return readChecked(path, max, func(data []byte) error { return CheckTOML(path, data, lim) })
}
