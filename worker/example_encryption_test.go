package worker_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"time"

	"github.com/tickwork/tickwork/encryption"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker"
)

// A job enqueued Encrypted is stored sealed: its payload, the metadata
// values named, and the output its handler records. The handler sees them
// in clear. Keys come from a secret store, "id:base64" each, the newest
// last (cmd/worker reads TICKWORK_ENCRYPTION_KEYS): to rotate, add a key
// at the end, and keep the old one while jobs sealed with it remain.
func ExampleEncrypted() {
	secret := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, encryption.KeySize)) // never a constant in production
	keys, err := encryption.ParseRing("2026-12:" + secret)
	if err != nil {
		fmt.Println(err)
		return
	}
	st := mem.New(time.Now)
	w, _ := worker.New(st, worker.Options{Config: quietConfig(), Logger: slog.New(slog.DiscardHandler), Encryption: keys})
	_ = worker.Handle(w, "welcome", func(ctx context.Context, job worker.Job[Welcome]) error {
		email, _ := job.MetadataValue("email")
		fmt.Println("handler sees", job.Payload.User, email)
		return worker.RecordOutput(ctx, map[string]string{"sent_to": email})
	})
	client := worker.NewClient(st, nil)
	client.SetEncryption(keys)
	id, _ := worker.Enqueue(context.Background(), client, Welcome{User: "ada"},
		worker.WithMetadata(map[string]string{"email": "ada@example.com"}), worker.Encrypted("email"))

	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()
	var job store.Job
	for job.Status != store.Completed { // a test's wait: a service has no need to
		time.Sleep(time.Millisecond)
		_ = st.InTx(context.Background(), func(tx store.Tx) (err error) { job, err = tx.GetJob(context.Background(), id); return err })
	}
	stop()
	<-done
	for _, stored := range [][]byte{job.Payload, job.Metadata, job.Output} {
		fmt.Println(bytes.Contains(stored, []byte("ada")), bytes.Contains(stored, []byte("tickwork_encrypted")))
	}
	// Output:
	// handler sees ada ada@example.com
	// false true
	// false true
	// false true
}
