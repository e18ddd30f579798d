package localpg

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// finder is a Finder over a fixed environment whose probe answers with
// probeErr and counts its calls.
func finder(env map[string]string, probeErr error, probes *int) Finder {
	return Finder{
		Getenv: func(k string) string { return env[k] },
		Probe: func(_ context.Context, url string) error {
			*probes++
			if url != DefaultURL {
				return errors.New("probed " + url)
			}
			return probeErr
		},
	}
}

func TestFindPrefersDatabaseURL(t *testing.T) {
	probes := 0
	url, err := finder(map[string]string{"DATABASE_URL": "postgres://elsewhere/db"}, nil, &probes).Find(t.Context())
	if err != nil || url != "postgres://elsewhere/db" || probes != 0 {
		t.Fatalf("Find = %q, %v after %d probes; want DATABASE_URL, unprobed", url, err, probes)
	}
}

func TestFindFallsBackToTheLocalServer(t *testing.T) {
	probes := 0
	url, err := finder(nil, nil, &probes).Find(t.Context())
	if err != nil || url != DefaultURL || probes != 1 {
		t.Fatalf("Find = %q, %v after %d probes; want %s", url, err, probes, DefaultURL)
	}
}

func TestFindSaysWhatItTried(t *testing.T) {
	probes := 0
	url, err := finder(nil, errors.New("connection refused"), &probes).Find(t.Context())
	if err == nil || url != "" {
		t.Fatalf("Find = %q, %v; want an error", url, err)
	}
	for _, want := range []string{"DATABASE_URL is unset", DefaultURL, "connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// TestProbeFailsOnAClosedPort: nothing listens on port 1.
func TestProbeFailsOnAClosedPort(t *testing.T) {
	if err := Probe(t.Context(), "postgres://postgres@127.0.0.1:1/test?sslmode=disable"); err == nil {
		t.Fatal("Probe of a closed port succeeded")
	}
}
