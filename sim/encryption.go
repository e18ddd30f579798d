package sim

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/encryption"
	"github.com/tickwork/tickwork/internal/envelope"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

// simKeys is a run's encryption (fault kind Encryption): a share of the
// jobs enqueued is sealed, as worker.Encrypted seals them, with the key
// ring of the client at that time; key k2 joins the ring at rotateAt, and
// a process holds the ring of its incarnation's start, so one that has
// not restarted since lacks k2. keyless, if not -1, is a process deployed
// without k1: it can open no job sealed before the rotation. Every draw
// comes from sources of its own, so seeds with the kind off run as before.
type simKeys struct {
	k1, k2   encryption.Key
	rotateAt time.Duration
	keyless  int
	rnd      *clockrng.Rand // which jobs are sealed
	nonces   *clockrng.Rand // the client's nonces
	procs    *clockrng.Rand // the parent of each incarnation's nonce source
	// clients are the client's rings before and after the rotation, made
	// once each: a ring sets a cipher up per key, which cost a tenth of
	// sealing a job when each job had a ring of its own.
	clients [2]*encryption.Ring
}

// drawKeys sets the run's keys up, after its processes.
func (s *sim) drawKeys() {
	if !s.on(Encryption) {
		return
	}
	r := s.master.Child("encryption")
	k := &simKeys{k1: simKey(r, "k1"), k2: simKey(r, "k2"), keyless: -1,
		rnd: r.Child("jobs"), nonces: r.Child("client"), procs: r.Child("procs")}
	k.rotateAt = r.DurationBetween(0, s.sc.Chaos.D())
	if r.Chance(0.5) {
		k.keyless = r.IntN(len(s.procs))
	}
	s.keys = k
	s.tr.printf(0, "sim", "encryption: k2 joins at %v; keyless process %d", k.rotateAt, k.keyless)
}

func simKey(r *clockrng.Rand, id string) encryption.Key {
	k := encryption.Key{ID: id, Secret: make([]byte, encryption.KeySize)}
	_, _ = r.Read(k.Secret) // never fails
	return k
}

// ring returns the keys a holder gets now: both after the rotation, k1
// before; without k1 for the keyless process (none before the rotation).
func (k *simKeys) ring(now time.Duration, keyless bool, nonces *clockrng.Rand) *encryption.Ring {
	var keys []encryption.Key
	if !keyless {
		keys = append(keys, k.k1)
	}
	if now >= k.rotateAt {
		keys = append(keys, k.k2)
	}
	if len(keys) == 0 {
		return nil
	}
	r, err := encryption.NewRing(keys...)
	if err != nil {
		panic(fmt.Sprintf("sim: the simulated keys: %v", err)) // fixed ids and sizes: a bug here
	}
	return r.WithNonces(nonces)
}

// client returns the client's ring now, on the client's nonces.
func (k *simKeys) client(now time.Duration) *encryption.Ring {
	i := 0
	if now >= k.rotateAt {
		i = 1
	}
	if k.clients[i] == nil {
		k.clients[i] = k.ring(now, false, k.nonces)
	}
	return k.clients[i]
}

// startKeys gives p's new incarnation its ring.
func (s *sim) startKeys(p *proc) {
	if s.keys != nil {
		p.ring = s.keys.ring(s.now, p.idx == s.keys.keyless, s.keys.procs.ChildN(p.name, p.inc))
	}
}

// sealJob seals a share of the jobs enqueued, payload and a metadata
// value, with the client's ring, recording their clear texts first.
func (s *sim) sealJob(j *store.NewJob) {
	if s.keys == nil || !s.keys.rnd.Chance(s.rate(Encryption)) {
		return
	}
	account := strconv.Quote("a" + j.ID.String())
	meta := json.RawMessage(`{"account":` + account + `}`)
	payload, meta, err := s.keys.client(s.now).SealJob(j.Payload, meta, []string{"account"})
	if err != nil {
		s.stop(nil, fmt.Errorf("seed %d: seal job %s: %w", s.sc.Seed, j.ID, err))
		return
	}
	s.record(&props.Event{Kind: props.Encrypted, Job: j.ID, Fields: []string{props.SealedPayload, props.SealedMetadata + "account"},
		Clear: []string{string(j.Payload), account}})
	j.Payload, j.Metadata = payload, meta
	s.count(Encryption)
}

// openJob opens j as a worker does before its handler: a job p cannot
// open fails its attempt with the worker's reason; ex keeps a sealed
// job's payload, to seal its output with.
func (s *sim) openJob(p *proc, j *store.Job, ex *execution) {
	if !envelope.Is(j.Payload) {
		return
	}
	ex.sealed = j.Payload
	o, err := p.ring.OpenJob(j.Payload, j.Metadata)
	if err != nil {
		ex.decision, ex.reason, ex.snooze = worker.Retry, "worker: "+err.Error(), 0
		s.res.Marks.set(MarkMissingKey)
		return
	}
	for _, k := range o.Keys {
		if k != p.ring.Newest() {
			s.res.Marks.set(MarkOlderKey)
		}
	}
}
