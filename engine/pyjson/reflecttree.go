package pyjson

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
)

var (
	jsonMarshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	textMarshalerType = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
	numberType        = reflect.TypeOf(json.Number(""))
)

// reflectTree converts a Go value to a JSON tree like encoding/json would, except that floats
// stay float64 so the encoder can write them the Python way (1.0, not 1).
func reflectTree(v reflect.Value) (any, error) {
	if !v.IsValid() {
		return nil, nil
	}
	if v.Type() == numberType {
		return json.Number(v.String()), nil
	}
	if v.Kind() != reflect.Pointer && v.Kind() != reflect.Interface && v.Type().Implements(jsonMarshalerType) {
		raw, err := v.Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			return nil, err
		}
		return DecodeTree(raw)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, nil
		}
		if v.Kind() == reflect.Pointer && v.Type().Implements(jsonMarshalerType) {
			raw, err := v.Interface().(json.Marshaler).MarshalJSON()
			if err != nil {
				return nil, err
			}
			return DecodeTree(raw)
		}
		return reflectTree(v.Elem())
	case reflect.Bool:
		return v.Bool(), nil
	case reflect.String:
		return v.String(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return json.Number(strconv.FormatInt(v.Int(), 10)), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return json.Number(strconv.FormatUint(v.Uint(), 10)), nil
	case reflect.Float32, reflect.Float64:
		return v.Float(), nil
	case reflect.Slice:
		if v.IsNil() {
			return nil, nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(v.Bytes()), nil
		}
		fallthrough
	case reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			item, err := reflectTree(v.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = item
		}
		return out, nil
	case reflect.Map:
		if v.IsNil() {
			return nil, nil
		}
		out := make(map[string]any, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			key, err := mapKey(iter.Key())
			if err != nil {
				return nil, err
			}
			item, err := reflectTree(iter.Value())
			if err != nil {
				return nil, err
			}
			out[key] = item
		}
		return out, nil
	case reflect.Struct:
		out := map[string]any{}
		if err := structFields(v, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	return nil, fmt.Errorf("cannot encode %s as JSON", v.Type())
}

func mapKey(k reflect.Value) (string, error) {
	if k.Kind() == reflect.String {
		return k.String(), nil
	}
	if k.Type().Implements(textMarshalerType) {
		b, err := k.Interface().(encoding.TextMarshaler).MarshalText()
		return string(b), err
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(k.Uint(), 10), nil
	}
	return "", fmt.Errorf("unsupported map key type %s", k.Type())
}

// structFields puts a struct's JSON fields into out, by the field rules the encoder uses
// (structInfo): exported fields, `json:"name,omitempty"`, `json:"name,string"`, `json:"-"`,
// and untagged embedded structs promoted into the parent.
func structFields(v reflect.Value, out map[string]any) error {
	for _, f := range structInfo(v.Type()) {
		fv, ok := fieldByIndex(v, f.index)
		if !ok || (f.omitEmpty && isEmptyValue(fv)) {
			continue
		}
		item, err := reflectTree(fv)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		if f.quoted && item != nil {
			item = fmt.Sprint(item)
		}
		out[f.name] = item
	}
	return nil
}

func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
