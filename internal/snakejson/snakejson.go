// Package snakejson writes and reads JSON whose object keys are all
// snake_case, for Go values whose struct fields are not all tagged for
// JSON: a field with a json tag keeps its tag's name, one with a toml tag
// takes that (the configuration files' names, units included: kf_mps_per_n),
// and any other becomes snake_case (PadRadius → pad_radius, NoiseRMS →
// noise_rms, A40Um → a40_um). Reading takes those names back, and also
// the Go field names of files written before, the way encoding/json
// matches them (any case).
//
// A type with its own MarshalJSON is walked by its Go fields all the
// same, as far as its keys match them; a key that matches none (a field
// its MarshalJSON adds, such as PeriodMs) is written snake_case and read
// back without its underscores, which encoding/json matches to the Go
// name in any case. A type with MarshalText is a string and left alone.
//
// It owns the renaming only: the values are encoding/json's, numbers are
// carried through exactly (json.Number).
package snakejson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"unicode"
)

// MarshalIndent is json.MarshalIndent with every untagged struct field's
// key in snake_case.
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	tree, err := decode(b)
	if err != nil {
		return nil, err
	}
	tree = rename(tree, reflect.TypeOf(v), true)
	return json.MarshalIndent(tree, prefix, indent)
}

// Unmarshal is json.Unmarshal for data written by MarshalIndent (or by
// encoding/json, with Go field names).
func Unmarshal(data []byte, v any) error {
	tree, err := decode(data)
	if err != nil {
		return err
	}
	tree = rename(tree, reflect.TypeOf(v), false)
	b, err := json.Marshal(tree)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// object is a JSON object that keeps its keys in order, so the output
// lists fields in the order of their structs.
type object struct {
	keys []string
	vals map[string]any
}

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// decode parses JSON into objects, []any and json.Number leaves.
func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return value(d)
}

func value(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := &object{vals: map[string]any{}}
		for d.More() {
			kt, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := value(d)
			if err != nil {
				return nil, err
			}
			o.set(kt.(string), v)
		}
		_, err := d.Token() // '}'
		return o, err
	case json.Delim('['):
		list := []any{}
		for d.More() {
			v, err := value(d)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := d.Token() // ']'
		return list, err
	}
	return tok, nil
}

// Snake converts a Go identifier to snake_case: a word starts at an
// upper-case letter after a lower-case letter or a digit, and at the
// last upper-case letter of an acronym followed by a lower-case one.
func Snake(name string) string {
	r := []rune(name)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prev := r[i-1]
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && nextLower {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

// opaque reports whether t writes itself as a string (MarshalText).
func opaque(t reflect.Type) bool {
	return t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)
}

// field is a struct field as JSON writes it: its key from encoding/json
// (tag or Go name) and its snake_case key.
type field struct {
	goKey, snakeKey string
	typ             reflect.Type
}

// fields lists t's fields the way encoding/json flattens them (embedded
// untagged structs contribute their own fields).
func fields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			out = append(out, fields(ft)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		switch toml, _, _ := strings.Cut(f.Tag.Get("toml"), ","); {
		case name != "":
			out = append(out, field{goKey: name, snakeKey: name, typ: f.Type})
		case toml != "" && toml != "-":
			out = append(out, field{goKey: f.Name, snakeKey: toml, typ: f.Type})
		default:
			out = append(out, field{goKey: f.Name, snakeKey: Snake(f.Name), typ: f.Type})
		}
	}
	return out
}

// rename walks tree (as decoded from the JSON of a value of type t) and
// renames each object key of an untagged field: to snake_case, or back.
func rename(tree any, t reflect.Type, toSnake bool) any {
	if t == nil {
		return tree
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if opaque(t) {
		return tree
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := tree.(*object)
		if !ok {
			return tree
		}
		fs := fields(t)
		out := &object{vals: make(map[string]any, len(obj.keys))}
		for _, k := range obj.keys {
			v := obj.vals[k]
			f, found := match(fs, k, toSnake)
			if !found {
				// A key the type's own MarshalJSON wrote.
				if toSnake {
					out.set(Snake(k), v)
				} else {
					out.set(strings.ReplaceAll(k, "_", ""), v)
				}
				continue
			}
			key := f.goKey
			if toSnake {
				key = f.snakeKey
			}
			out.set(key, rename(v, f.typ, toSnake))
		}
		return out
	case reflect.Slice, reflect.Array:
		list, ok := tree.([]any)
		if !ok {
			return tree
		}
		for i, v := range list {
			list[i] = rename(v, t.Elem(), toSnake)
		}
		return list
	case reflect.Map:
		obj, ok := tree.(*object)
		if !ok {
			return tree
		}
		for _, k := range obj.keys {
			obj.vals[k] = rename(obj.vals[k], t.Elem(), toSnake)
		}
		return obj
	}
	return tree
}

// match finds the field a key belongs to: by its encoding/json key when
// writing; when reading, by its snake_case key first, then as
// encoding/json would (any case).
func match(fs []field, key string, toSnake bool) (field, bool) {
	for _, f := range fs {
		if toSnake && f.goKey == key || !toSnake && f.snakeKey == key {
			return f, true
		}
	}
	if !toSnake {
		for _, f := range fs {
			if strings.EqualFold(f.goKey, key) {
				return f, true
			}
		}
	}
	return field{}, false
}
