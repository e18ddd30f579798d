package configtest

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/tickwork/tickwork/worker/engine"
)

// Leaf is a field of engine.Config, or of a struct field of it
// (Backoff.Base), that holds a value rather than more fields.
type Leaf struct {
	Path  string
	index []int
}

// Leaves returns every leaf field of engine.Config in declaration order.
func Leaves() []Leaf {
	return leaves(reflect.TypeFor[engine.Config](), "", nil)
}

func leaves(t reflect.Type, prefix string, index []int) []Leaf {
	var out []Leaf
	for i := range t.NumField() {
		f := t.Field(i)
		idx := append(append([]int(nil), index...), i)
		if f.Type.Kind() == reflect.Struct {
			out = append(out, leaves(f.Type, prefix+f.Name+".", idx)...)
			continue
		}
		out = append(out, Leaf{Path: prefix + f.Name, index: idx})
	}
	return out
}

// Get returns the field's value in c.
func (f Leaf) Get(c engine.Config) any {
	return reflect.ValueOf(c).FieldByIndex(f.index).Interface()
}

func (f Leaf) set(c *engine.Config, v any) error {
	field := reflect.ValueOf(c).Elem().FieldByIndex(f.index)
	rv := reflect.ValueOf(v)
	if !rv.CanConvert(field.Type()) {
		return fmt.Errorf("configtest: Config.%s is a %v, the value %v a %T", f.Path, field.Type(), v, v)
	}
	field.Set(rv.Convert(field.Type()))
	return nil
}

// Diff names each leaf field whose value differs between got and want,
// with both values; an empty slice or map equals a nil one.
func Diff(got, want engine.Config) string {
	var b strings.Builder
	for _, f := range Leaves() {
		g, w := f.Get(got), f.Get(want)
		if !Equal(g, w) {
			fmt.Fprintf(&b, "\n\tConfig.%s is %v, want %v", f.Path, g, w)
		}
	}
	return b.String()
}

// Equal compares two field values, an empty slice or map equal to nil.
func Equal(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if k := va.Kind(); (k == reflect.Slice || k == reflect.Map) && va.Len() == 0 && vb.Len() == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}
