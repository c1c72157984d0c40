// Package fieldcmp compares two values field by field, for the tests that
// pin a Reset method to its constructor (check and model): a reset value
// must equal a new one in everything but the capacity of its slices and
// the fields a caller names as allocator state.
package fieldcmp

import (
	"fmt"
	"reflect"
)

// Diff returns the path (rooted at path) of the first place a and b
// differ, or "" when they are equal. Slices compare by length and content,
// not capacity, and nil equals only nil; maps compare by content, nil
// equal only to nil; pointers compare what they point to (each pair of
// pointers once, so cycles end); funcs compare whether they are set. The
// fields for which skip(type, field) is true are not compared (type is
// the struct type's name as reflect prints it, e.g. "client.Producer");
// skip may be nil.
func Diff(a, b reflect.Value, path string, skip func(typ, field string) bool) string {
	seen := map[[2]uintptr]bool{}
	var walk func(a, b reflect.Value, path string) string
	walk = func(a, b reflect.Value, path string) string {
		if a.Kind() != b.Kind() {
			return path + ": kinds differ"
		}
		switch a.Kind() {
		case reflect.Pointer:
			if a.IsNil() || b.IsNil() {
				if a.IsNil() != b.IsNil() {
					return path + ": nil against non-nil"
				}
				return ""
			}
			k := [2]uintptr{a.Pointer(), b.Pointer()}
			if seen[k] {
				return ""
			}
			seen[k] = true
			return walk(a.Elem(), b.Elem(), path)
		case reflect.Interface:
			if a.IsNil() || b.IsNil() {
				if a.IsNil() != b.IsNil() {
					return path + ": nil against non-nil"
				}
				return ""
			}
			if a.Elem().Type() != b.Elem().Type() {
				return path + ": dynamic types differ"
			}
			return walk(a.Elem(), b.Elem(), path)
		case reflect.Struct:
			t := a.Type()
			for i := range a.NumField() {
				if skip != nil && skip(t.String(), t.Field(i).Name) {
					continue
				}
				if d := walk(a.Field(i), b.Field(i), path+"."+t.Field(i).Name); d != "" {
					return d
				}
			}
			return ""
		case reflect.Slice:
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: nil against empty (len %d, %d)", path, a.Len(), b.Len())
			}
			fallthrough
		case reflect.Array:
			if a.Len() != b.Len() {
				return fmt.Sprintf("%s: length %d against %d", path, a.Len(), b.Len())
			}
			for i := range a.Len() {
				if d := walk(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
					return d
				}
			}
			return ""
		case reflect.Map:
			if a.IsNil() != b.IsNil() {
				return path + ": nil map against non-nil"
			}
			if a.Len() != b.Len() {
				return fmt.Sprintf("%s: %d entries against %d", path, a.Len(), b.Len())
			}
			it := a.MapRange()
			for it.Next() {
				bv := b.MapIndex(it.Key())
				if !bv.IsValid() {
					return fmt.Sprintf("%s: key %v only on one side", path, it.Key())
				}
				if d := walk(it.Value(), bv, fmt.Sprintf("%s[%v]", path, it.Key())); d != "" {
					return d
				}
			}
			return ""
		case reflect.Func:
			if a.IsNil() != b.IsNil() {
				return path + ": func set on one side"
			}
			return ""
		case reflect.Chan, reflect.UnsafePointer:
			return path + ": unexpected kind " + a.Kind().String()
		}
		if fmt.Sprint(a) != fmt.Sprint(b) {
			return fmt.Sprintf("%s: %v against %v", path, a, b)
		}
		return ""
	}
	return walk(a, b, path)
}
