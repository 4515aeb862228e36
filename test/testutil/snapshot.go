package testutil

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Snapshot renders what v holds, one "path = value" line per leaf, following pointers, slices,
// maps and structs (unexported fields too), so that two snapshots taken around a step differ
// exactly where the step changed something v reaches. Interface values that hold a pointer,
// a map, a slice, a func or a channel (a client, a clock, a stream) are rendered by type and
// identity only: replacing one shows, writing through one (a buffer filling up) does not.
func Snapshot(v any) []string {
	s := &snapshotter{seen: map[uintptr]string{}}
	s.walk("", reflect.ValueOf(v))
	return s.lines
}

// SnapshotDiff returns the lines of after that differ from before, and the lines of before
// that after lost, as "- line" and "+ line"; empty when they are the same.
func SnapshotDiff(before, after []string) []string {
	inBefore := map[string]int{}
	for _, l := range before {
		inBefore[l]++
	}
	inAfter := map[string]int{}
	for _, l := range after {
		inAfter[l]++
	}
	var out []string
	for _, l := range before {
		if inAfter[l] == 0 {
			out = append(out, "- "+l)
		} else {
			inAfter[l]--
		}
	}
	for _, l := range after {
		if inBefore[l] == 0 {
			out = append(out, "+ "+l)
		} else {
			inBefore[l]--
		}
	}
	return out
}

type snapshotter struct {
	lines []string
	seen  map[uintptr]string
}

func (s *snapshotter) leaf(path, value string) {
	s.lines = append(s.lines, path+" = "+value)
}

func (s *snapshotter) walk(path string, v reflect.Value) {
	if !v.IsValid() {
		s.leaf(path, "<invalid>")
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			s.leaf(path, "nil")
			return
		}
		if first, ok := s.seen[v.Pointer()]; ok {
			s.leaf(path, "-> "+first)
			return
		}
		s.seen[v.Pointer()] = path
		s.walk(path+".*", v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			s.leaf(path, "nil")
			return
		}
		e := v.Elem()
		switch e.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.UnsafePointer:
			s.leaf(path, fmt.Sprintf("%s@%x", e.Type(), e.Pointer()))
		default:
			s.walk(path+".("+e.Type().String()+")", e)
		}
	case reflect.Struct:
		t := v.Type()
		if v.NumField() == 0 {
			s.leaf(path, "{}")
		}
		for i := range v.NumField() {
			s.walk(path+"."+t.Field(i).Name, v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			s.leaf(path, "nil")
			return
		}
		s.leaf(path+".len", strconv.Itoa(v.Len()))
		for i := range v.Len() {
			s.walk(path+"["+strconv.Itoa(i)+"]", v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			s.leaf(path, "nil")
			return
		}
		s.leaf(path+".len", strconv.Itoa(v.Len()))
		type entry struct {
			key string
			val reflect.Value
		}
		var entries []entry
		it := v.MapRange()
		for it.Next() {
			k := &snapshotter{seen: map[uintptr]string{}}
			k.walk("", it.Key())
			entries = append(entries, entry{strings.Join(k.lines, ","), it.Value()})
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
		for _, e := range entries {
			s.walk(path+"["+e.key+"]", e.val)
		}
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		if v.IsNil() {
			s.leaf(path, "nil")
			return
		}
		s.leaf(path, fmt.Sprintf("%s@%x", v.Type(), v.Pointer()))
	case reflect.String:
		s.leaf(path, strconv.Quote(v.String()))
	case reflect.Bool:
		s.leaf(path, strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s.leaf(path, strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		s.leaf(path, strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		s.leaf(path, strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Complex64, reflect.Complex128:
		s.leaf(path, strconv.FormatComplex(v.Complex(), 'g', -1, 128))
	default:
		s.leaf(path, "<"+v.Kind().String()+">")
	}
}
