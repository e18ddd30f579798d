package engine

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// TestResetButJob sets every field of an event and checks that
// resetButJob clears all but Job: a field it missed would carry a stale
// value into the core's next emitted event.
func TestResetButJob(t *testing.T) {
	var e Event
	v := reflect.ValueOf(&e).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Int, reflect.Int64:
			f.SetInt(1)
		case reflect.String:
			f.SetString("x")
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Array:
			f.Index(0).SetUint(1)
		case reflect.Interface:
			f.Set(reflect.ValueOf(errors.New("x")))
		case reflect.Struct:
			if f.Type() == reflect.TypeFor[time.Time]() {
				f.Set(reflect.ValueOf(time.Unix(1, 0)))
				continue
			}
			f.Set(reflect.ValueOf(store.Job{ID: ulid.ULID{1}}))
		default:
			t.Fatalf("field %s: no test value for kind %s", v.Type().Field(i).Name, f.Kind())
		}
	}
	e.resetButJob(EventHeartbeat, ulid.ULID{2})
	want := Event{Kind: EventHeartbeat, Worker: ulid.ULID{2}, Job: store.Job{ID: ulid.ULID{1}}}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("after resetButJob: %+v\nwant %+v", e, want)
	}
}
