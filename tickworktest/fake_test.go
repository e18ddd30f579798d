package tickworktest_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeTB records the failure of a helper instead of failing the test, so
// that tests can check the helpers fail, and say why.
type fakeTB struct {
	testing.TB // nil: a helper calling anything else panics, and the test sees it
	failure    string
}

func (f *fakeTB) Helper()                  {}
func (f *fakeTB) Context() context.Context { return context.Background() }

// Fatalf ends the helper's goroutine as testing.T's does.
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failure = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// fails runs fn in a goroutine of its own, as t.Run would, and returns
// the failure it reported, or "" if it passed.
func (f *fakeTB) fails(fn func()) string {
	f.failure = ""
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
	return f.failure
}

// wantFailure checks that fn failed with a message holding every part.
func wantFailure(t *testing.T, f *fakeTB, fn func(), parts ...string) {
	t.Helper()
	msg := f.fails(fn)
	if msg == "" {
		t.Fatalf("the helper passed; want a failure saying %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("failure %q\ndoes not say %q", msg, p)
		}
	}
}

// wantPass checks that fn did not fail.
func wantPass(t *testing.T, f *fakeTB, fn func()) {
	t.Helper()
	if msg := f.fails(fn); msg != "" {
		t.Fatalf("the helper failed: %s", msg)
	}
}
