package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/encryption"
	"github.com/tickwork/tickwork/internal/envelope"
	"github.com/tickwork/tickwork/tickworktest"
	"github.com/tickwork/tickwork/worker"
)

// card is a payload worth encrypting.
type card struct {
	Number string `json:"number"`
}

func keyRing(t *testing.T, ids ...string) *encryption.Ring {
	t.Helper()
	var keys []encryption.Key
	for _, id := range ids {
		keys = append(keys, encryption.Key{ID: id, Secret: bytes.Repeat([]byte(id[len(id)-1:]), encryption.KeySize)})
	}
	r, err := encryption.NewRing(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// An encrypted job's payload, marked metadata value and output are stored
// sealed; its handler sees them in clear, with a ring rotated since.
func TestEncryptedJobRoundTrip(t *testing.T) {
	kit := tickworktest.New(t, tickworktest.Options{Worker: worker.Options{Encryption: keyRing(t, "k1", "k2")}})
	kit.Client().SetEncryption(keyRing(t, "k1")) // enqueued before the rotation
	var seen string
	if err := worker.Handle(kit.Worker(), "cards", func(ctx context.Context, job worker.Job[card]) error {
		holder, _ := job.MetadataValue("holder")
		seen = job.Payload.Number + " " + holder
		return worker.RecordOutput(ctx, map[string]string{"charged": job.Payload.Number})
	}); err != nil {
		t.Fatal(err)
	}
	_, err := worker.Enqueue(context.Background(), kit.Client(), card{Number: "4111"}, worker.WithQueue("cards"),
		worker.WithMetadata(map[string]string{"holder": "Ada", "region": "eu"}), worker.Encrypted("holder"))
	if err != nil {
		t.Fatal(err)
	}
	a := kit.WorkOne()
	if a.Decision != worker.Succeed || seen != "4111 Ada" {
		t.Fatalf("attempt %s (%s); the handler saw %q", a.Decision, a.Reason, seen)
	}
	row := a.Job
	for name, v := range map[string]json.RawMessage{"payload": row.Payload, "metadata": row.Metadata, "output": row.Output} {
		if bytes.Contains(v, []byte("4111")) || bytes.Contains(v, []byte("Ada")) {
			t.Errorf("the stored %s holds clear text: %s", name, v)
		}
	}
	if s, ok := envelope.Parse(row.Output); !ok || s.Key != "k2" {
		t.Errorf("the output %s is not sealed with the worker's newest key k2", row.Output)
	}
	if !strings.Contains(string(row.Metadata), `"region":"eu"`) {
		t.Errorf("an unmarked metadata value was not kept in clear: %s", row.Metadata)
	}
}

// A worker without the job's key fails that attempt, naming the key, and
// goes on: the retry is another attempt, and a clear job still runs.
func TestMissingKeyFailsTheJobNotTheWorker(t *testing.T) {
	kit := tickworktest.New(t, tickworktest.Options{Worker: worker.Options{Encryption: keyRing(t, "k2")}})
	kit.Client().SetEncryption(keyRing(t, "k1"))
	ran := 0
	if err := worker.Handle(kit.Worker(), "cards", func(ctx context.Context, job worker.Job[card]) error { ran++; return nil }); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := worker.Enqueue(ctx, kit.Client(), card{Number: "4111"}, worker.WithQueue("cards"), worker.Encrypted()); err != nil {
		t.Fatal(err)
	}
	a := kit.WorkOne()
	want := `worker: payload encrypted with key "k1", which this worker does not hold (it holds [k2])`
	if a.Decision != worker.Retry || a.Reason != want || a.Retry == nil || ran != 0 {
		t.Fatalf("attempt %s %q (retry %v), handler ran %d times; want a retry: %s", a.Decision, a.Reason, a.Retry != nil, ran, want)
	}
	if _, err := worker.Enqueue(ctx, kit.Client(), card{Number: "0"}, worker.WithQueue("cards")); err != nil {
		t.Fatal(err)
	}
	kit.Drain()
	if ran != 1 {
		t.Fatalf("the clear job ran %d times after the failed one, want 1", ran)
	}
}

// Encrypted without a ring on the client, or naming a metadata entry the
// job lacks, is refused and writes nothing.
func TestEncryptedRefusesWhatItCannotSeal(t *testing.T) {
	kit := tickworktest.New(t, tickworktest.Options{})
	ctx := context.Background()
	_, err := worker.Enqueue(ctx, kit.Client(), card{}, worker.WithQueue("cards"), worker.Encrypted())
	if err == nil || !strings.Contains(err.Error(), "no key ring") {
		t.Errorf("Encrypted without a ring: %v", err)
	}
	kit.Client().SetEncryption(keyRing(t, "k1"))
	_, err = worker.Enqueue(ctx, kit.Client(), card{}, worker.WithQueue("cards"), worker.Encrypted("holder"))
	if err == nil || !strings.Contains(err.Error(), `"holder"`) {
		t.Errorf("Encrypted of a missing metadata entry: %v", err)
	}
	tickworktest.RequireNotEnqueued(t, kit.Store(), tickworktest.Want{Queue: "cards"})
}
