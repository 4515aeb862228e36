package jobspec

import (
	"encoding/json"
	"reflect"
	"strconv"
)

// goNames converts a value of the v1 API types into plain maps keyed by Go field names (the
// internal API types have no JSON tags, so the server's error messages show them that way).
func goNames(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Invalid:
		return nil
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return goNames(v.Elem())
	case reflect.Struct:
		m := make(map[string]any, v.NumField())
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			if !t.Field(i).IsExported() {
				continue
			}
			m[t.Field(i).Name] = goNames(v.Field(i))
		}
		return orderedStruct{t: t, m: m}
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = goNames(v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		out := make(map[string]any, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			out[iter.Key().String()] = goNames(iter.Value())
		}
		return out
	default:
		return v.Interface()
	}
}

// orderedStruct marshals its fields in declaration order, as encoding/json does for a struct.
type orderedStruct struct {
	t reflect.Type
	m map[string]any
}

func (o orderedStruct) MarshalJSON() ([]byte, error) {
	buf := []byte{'{'}
	for i := 0; i < o.t.NumField(); i++ {
		f := o.t.Field(i)
		if !f.IsExported() {
			continue
		}
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		val, err := json.Marshal(o.m[f.Name])
		if err != nil {
			return nil, err
		}
		// A Go field name is a plain identifier: quoted as JSON quotes it.
		buf = append(strconv.AppendQuote(buf, f.Name), ':')
		buf = append(buf, val...)
	}
	return append(buf, '}'), nil
}
