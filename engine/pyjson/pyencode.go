package pyjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// encodeValue writes a Go value straight to the Python-compatible encoding, walking structs
// and typed containers by reflection without building an intermediate tree: run writing
// spends most of its time here.
func encodeValue(buf *bytes.Buffer, v reflect.Value, style PyStyle, depth int) error {
	if !v.IsValid() {
		buf.WriteString("null")
		return nil
	}
	t := v.Type()
	if t == numberType {
		return encodeTree(buf, json.Number(v.String()), style, depth)
	}
	if t.Implements(jsonMarshalerType) {
		return encodeMarshaler(buf, v, style, depth)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			buf.WriteString("null")
			return nil
		}
		if v.Kind() == reflect.Interface {
			return encodeTree(buf, v.Elem().Interface(), style, depth)
		}
		return encodeValue(buf, v.Elem(), style, depth)
	case reflect.Bool:
		return encodeTree(buf, v.Bool(), style, depth)
	case reflect.String:
		return encodeTree(buf, v.String(), style, depth)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		buf.WriteString(strconv.FormatInt(v.Int(), 10))
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		buf.WriteString(strconv.FormatUint(v.Uint(), 10))
		return nil
	case reflect.Float32, reflect.Float64:
		s, err := FloatRepr(v.Float())
		if err != nil {
			return err
		}
		buf.WriteString(s)
		return nil
	case reflect.Slice:
		if v.IsNil() {
			buf.WriteString("null")
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			tree, err := reflectTree(v)
			if err != nil {
				return err
			}
			return encodeTree(buf, tree, style, depth)
		}
		fallthrough
	case reflect.Array:
		return writeItems(buf, style, depth, '[', ']', v.Len(), func(i int) error {
			return encodeValue(buf, v.Index(i), style, depth+1)
		})
	case reflect.Map:
		if v.IsNil() {
			buf.WriteString("null")
			return nil
		}
		return encodeMap(buf, v, style, depth)
	case reflect.Struct:
		return encodeStruct(buf, v, style, depth)
	}
	return fmt.Errorf("cannot encode %s as JSON", t)
}

// encodeMarshaler encodes a value with its own MarshalJSON, re-encoded in the Python style.
func encodeMarshaler(buf *bytes.Buffer, v reflect.Value, style PyStyle, depth int) error {
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
		buf.WriteString("null")
		return nil
	}
	raw, err := v.Interface().(json.Marshaler).MarshalJSON()
	if err != nil {
		return err
	}
	tree, err := DecodeTree(raw)
	if err != nil {
		return err
	}
	return encodeTree(buf, tree, style, depth)
}

// encodeMap encodes a non-nil map with its keys sorted, as sort_keys orders them.
func encodeMap(buf *bytes.Buffer, v reflect.Value, style PyStyle, depth int) error {
	type entry struct {
		key string
		val reflect.Value
	}
	entries := make([]entry, 0, v.Len())
	iter := v.MapRange()
	for iter.Next() {
		k, err := mapKey(iter.Key())
		if err != nil {
			return err
		}
		entries = append(entries, entry{k, iter.Value()})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
	return writeItems(buf, style, depth, '{', '}', len(entries), func(i int) error {
		writeKey(buf, entries[i].key, style)
		return encodeValue(buf, entries[i].val, style, depth+1)
	})
}

// encodeStruct encodes a struct's JSON fields sorted by name (structInfo), leaving out empty
// omitempty fields; a ",string" field is written as the string of its value.
func encodeStruct(buf *bytes.Buffer, v reflect.Value, style PyStyle, depth int) error {
	first := true
	for _, f := range structInfo(v.Type()) {
		fv, ok := fieldByIndex(v, f.index)
		if !ok || (f.omitEmpty && isEmptyValue(fv)) {
			continue
		}
		if first {
			buf.WriteByte('{')
			first = false
		} else {
			writeItemSep(buf, style)
		}
		writeIndent(buf, style, depth+1)
		writeKey(buf, f.name, style)
		if f.quoted {
			tree, err := reflectTree(fv)
			if err != nil {
				return err
			}
			if tree != nil {
				tree = fmt.Sprint(tree)
			}
			if err := encodeTree(buf, tree, style, depth+1); err != nil {
				return err
			}
			continue
		}
		if err := encodeValue(buf, fv, style, depth+1); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	if first {
		buf.WriteString("{}")
		return nil
	}
	writeIndent(buf, style, depth)
	buf.WriteByte('}')
	return nil
}

func writeKey(buf *bytes.Buffer, key string, style PyStyle) {
	writeString(buf, key, style)
	if style == Canonical {
		buf.WriteByte(':')
	} else {
		buf.WriteString(": ")
	}
}

type fieldInfo struct {
	name      string
	index     []int
	omitEmpty bool
	quoted    bool
}

var structCache sync.Map // reflect.Type -> []fieldInfo

// structInfo lists a struct type's JSON fields (encoding/json's naming rules, embedded
// structs promoted) sorted by name, as sort_keys orders them.
func structInfo(t reflect.Type) []fieldInfo {
	if cached, ok := structCache.Load(t); ok {
		return cached.([]fieldInfo)
	}
	var fields []fieldInfo
	seen := map[string]bool{}
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			index := append(append([]int{}, prefix...), i)
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft, index)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if seen[name] {
				continue
			}
			seen[name] = true
			fields = append(fields, fieldInfo{
				name: name, index: index,
				omitEmpty: strings.Contains(","+opts+",", ",omitempty,"),
				quoted:    strings.Contains(","+opts+",", ",string,"),
			})
		}
	}
	walk(t, nil)
	sort.Slice(fields, func(i, j int) bool { return fields[i].name < fields[j].name })
	structCache.Store(t, fields)
	return fields
}

// fieldByIndex follows an index path, reporting false through a nil embedded pointer.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}
