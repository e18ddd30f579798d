package props

import "testing"

const sealedText = `{"tickwork_encrypted":{"key":"k1","nonce":"AA==","data":"AA=="}}`

// enqueueSealed records job n enqueued with its payload {"n":n} and its
// metadata value "who" sealed, stored as payload and meta.
func enqueueSealed(b *builder, n int, payload, meta string) {
	b.event(Encrypted, none, func(e *Event) {
		e.Job, e.Fields, e.Clear = job(n), []string{SealedPayload, SealedMetadata + "who"}, []string{`{"n":1}`, `"ada"`}
	})
	b.commit(none, b.insertJob(JobRow{ID: job(n), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: b.now,
		Payload: payload, Metadata: meta}))
}

// sealedOutput records that job n's output {"r":1} was sealed.
func sealedOutput(b *builder, n int) {
	b.event(Encrypted, w1, func(e *Event) { e.Job, e.Fields, e.Clear = job(n), []string{SealedOutput}, []string{`{"r":1}`} })
}

var sealedMeta = `{"who":` + sealedText + `,"region":"eu"}`

var encryptedCases = []violationCase{
	{"payload stored in clear", EncryptedAtRest, "stores its encrypted payload", func(b *builder) int {
		setup(b)
		b.event(Encrypted, none, func(e *Event) { e.Job, e.Fields, e.Clear = job(1), []string{SealedPayload}, []string{`{"n":1}`} })
		return atNext(b, func() {
			b.commit(none, b.insertJob(JobRow{ID: job(1), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: b.now, Payload: `{"n":1}`}))
		})
	}},
	{"metadata value stored in clear", EncryptedAtRest, "metadata value who", func(b *builder) int {
		setup(b)
		b.event(Encrypted, none, func(e *Event) {
			e.Job, e.Fields, e.Clear = job(1), []string{SealedPayload, SealedMetadata + "who"}, []string{`{"n":1}`, `"ada"`}
		})
		return atNext(b, func() {
			b.commit(none, b.insertJob(JobRow{ID: job(1), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: b.now,
				Payload: sealedText, Metadata: `{"who":"ada"}`}))
		})
	}},
	{"retry stores the payload in clear", EncryptedAtRest, "job " + job(2).String() + " stores its encrypted payload", func(b *builder) int {
		setup(b)
		enqueueSealed(b, 1, sealedText, sealedMeta)
		b.commit(w1, b.reserve(1, w1))
		b.start(1, w1)
		b.end(1, w1, Retry)
		return atNext(b, func() {
			b.commit(w1, b.fail(1, "again"), b.retry(1, 2, b.params.Backoff.Nominal(0)), b.setJob(job(2), func(r *JobRow) { r.Payload = `{"n":1}` }))
		})
	}},
	{"output stored in clear", EncryptedAtRest, "stores its encrypted output", func(b *builder) int {
		setup(b)
		enqueueSealed(b, 1, sealedText, sealedMeta)
		b.commit(w1, b.reserve(1, w1))
		b.start(1, w1)
		sealedOutput(b, 1)
		b.event(ExecEnded, w1, func(e *Event) { e.Job, e.Decision, e.Output = job(1), Succeed, `{"r":1}` })
		return atNext(b, func() { b.commit(w1, b.completeWith(1, `{"r":1}`)) })
	}},
}

// A job whose fields stay sealed through a retry and a completion breaks
// nothing.
func TestSealedJobIsNoViolation(t *testing.T) {
	b := newBuilder()
	setup(b)
	enqueueSealed(b, 1, sealedText, sealedMeta)
	b.run(1, w1, Retry, 2)
	b.after(b.params.Backoff.Nominal(0))
	b.commit(none, b.promote(2))
	b.commit(w1, b.reserve(2, w1))
	b.start(2, w1)
	sealedOutput(b, 2)
	b.event(ExecEnded, w1, func(e *Event) { e.Job, e.Decision, e.Output = job(2), Succeed, sealedText })
	b.commit(w1, b.completeWith(2, sealedText))
	if vs := mustCheck(t, b.history()); len(vs) != 0 {
		t.Fatalf("violations:\n%v", vs)
	}
}
