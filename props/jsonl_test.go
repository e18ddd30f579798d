package props

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/clockrng"
)

func TestJSONLinesRoundTrip(t *testing.T) {
	b := newBuilder()
	fullRun(b)
	h := b.history()
	var first, second bytes.Buffer
	if err := WriteJSONLines(&first, h); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSONLines(bytes.NewReader(first.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, h) {
		t.Fatalf("history changed in a round trip")
	}
	if err := WriteJSONLines(&second, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Fatalf("encoding is not deterministic")
	}
	if lines := strings.Count(first.String(), "\n"); lines != len(h.Events)+1 {
		t.Fatalf("%d lines for %d events and a header", lines, len(h.Events))
	}
}

func TestReadJSONLinesErrors(t *testing.T) {
	header := `{"format":"` + HistoryFormat + `","params":{}}` + "\n"
	for name, tc := range map[string]struct{ in, want string }{
		"empty":         {"", "no header line"},
		"wrong format":  {`{"format":"other/1","params":{}}`, `format "other/1"`},
		"unknown field": {header + `{"Seq":1,"Bogus":2}`, `line 2: json: unknown field "Bogus"`},
		"malformed":     {header + "\n" + `{"Seq":`, "line 3"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ReadJSONLines(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestNewRejectsBadParams(t *testing.T) {
	for name, tc := range map[string]struct {
		edit func(*Params)
		want string
	}{
		"backoff":     {func(p *Params) { p.Backoff.Base = 0 }, "base"},
		"max retries": {func(p *Params) { p.MaxRetries = -1 }, "MaxRetries -1"},
		"cron":        {func(p *Params) { p.Schedules[0].Cron = "every day" }, `schedule "tick"`},
		"duplicate":   {func(p *Params) { p.Schedules = append(p.Schedules, p.Schedules[0]) }, "listed twice"},
		"max snoozes": {func(p *Params) { p.MaxSnoozes = -1 }, "MaxSnoozes -1"},
		"queue bound": {func(p *Params) { p.Policies = []QueuePolicy{{Queue: "q", MaxAttempts: -2}} }, `queue "q": MaxAttempts -2`},
		"queue backoff": {func(p *Params) { p.Policies = []QueuePolicy{{Queue: "q", Backoff: &clockrng.Backoff{Factor: 2}}} },
			`queue "q": backoff: base`},
	} {
		t.Run(name, func(t *testing.T) {
			p := testParams()
			tc.edit(&p)
			if _, err := New(p); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestViolationStringShowsRows(t *testing.T) {
	b := newBuilder()
	setup(b)
	b.commit(none, b.enqueue(1))
	vs := mustCheck(t, b.history())
	if len(vs) != 1 {
		t.Fatalf("violations %v, want one", vs)
	}
	s := vs[0].String()
	for _, want := range []string{"property 4 (no lost jobs) violated at event 4", "still available", "\n  job " + job(1).String() + " available queue=q"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q lacks %q", s, want)
		}
	}
}
