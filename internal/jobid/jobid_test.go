package jobid

import "testing"

func TestParse(t *testing.T) {
	const want = "01J0000000000000000000000A"
	for _, s := range []string{want, "01900000-0000-0000-0000-00000000000a", "0190000000000000000000000000000a"} {
		id, ok := Parse(s)
		if !ok || id.String() != want {
			t.Errorf("Parse(%q) = %s, %v; want %s", s, id, ok, want)
		}
	}
	for _, s := range []string{"", "nope", "01J0000000000000000000000", "{01900000-0000-0000-0000-00000000000a"} {
		if _, ok := Parse(s); ok {
			t.Errorf("Parse(%q) accepted it", s)
		}
	}
}
