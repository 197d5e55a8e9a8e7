package safefile

import "fmt"

// NameRule describes the names ValidName accepts, for messages.
const NameRule = "1-64 letters, digits, '-' and '_', starting with a letter or digit"

// ValidName reports whether s is a name haptex may turn into a file or
// folder name: 1-64 ASCII letters, digits, '-' and '_', starting with a
// letter or digit. So it is never empty, ".", "..", hidden, a path, or
// holds a NUL, a space or a byte a shell or another file system reads
// differently. Experiments, subjects and fabrics share it.
func ValidName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// CheckName returns an error naming what (e.g. "subject") when name is not
// ValidName; the error wraps ErrName.
func CheckName(what, name string) error {
	if ValidName(name) {
		return nil
	}
	return fmt.Errorf("%s %q: %w: use %s", what, name, ErrName, NameRule)
}
