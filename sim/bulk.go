package sim

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

// The workload of bulk actions: with the Bulk kind on, an operator runs,
// on its timer, a retry, cancel or delete of every job a drawn filter
// selects, through worker.Client.Bulk itself: the same batches, filter and
// refusals as `worker jobs cancel -queue ...`, each batch one client
// transaction. Batches are small (1 to 4 jobs), so that an action spans
// several. Its own fault kind and source, so that seeds without it draw as
// before.

// bulkStatuses are the statuses a filter of each action draws from: those
// it acts on, and one or two the store refuses.
var bulkStatuses = map[worker.BulkAction][]store.Status{
	worker.BulkRetry:  {store.Failed, store.Failed, store.Lost, store.Completed},
	worker.BulkCancel: {store.Available, store.Scheduled, store.Running, store.Waiting, store.Completed},
	worker.BulkDelete: {store.Completed, store.Failed, store.Cancelled, store.Running, store.Running},
}

var bulkActions = []worker.BulkAction{worker.BulkRetry, worker.BulkCancel, worker.BulkDelete}

// bulkAction has the operator run one drawn bulk action; the commits of
// its batches carry the request (s.bulk) for property 36.
func (s *sim) bulkAction() {
	defer s.armGlobalFault(Bulk, evBulk)
	if s.phase != chaos {
		return
	}
	r := s.clientRand(Bulk)
	req := s.drawBulk(r)
	s.count(Bulk)
	f := req.Filter
	s.bulk = &props.BulkRequest{Action: string(req.Action), Queue: f.Queue, Status: props.Status(f.Status),
		OlderThan: f.OlderThan, Text: f.Text, DryRun: req.DryRun, BatchSize: req.BatchSize}
	res, err := worker.NewClient(clientStore{s}, r).Bulk(s.ctx, req)
	s.bulk = nil
	if err != nil {
		s.stop(nil, err)
		return
	}
	s.tr.printf(s.now, "client", "bulk %s %+v dry %t batch %d: matched %d done %d refused %d in %d batches",
		req.Action, f, req.DryRun, req.BatchSize, res.Matched, res.Done, res.Refused, res.Batches)
	s.bulkMarks(req, res)
}

// drawBulk draws an action, its filter and its batch size from r.
func (s *sim) drawBulk(r *clockrng.Rand) worker.BulkRequest {
	req := worker.BulkRequest{Action: bulkActions[r.IntN(len(bulkActions))], DryRun: r.Chance(0.2), BatchSize: 1 + r.IntN(4)}
	f := &req.Filter
	if r.Chance(0.5) {
		f.Queue = s.cfg.Queues[r.IntN(s.sc.Queues)]
	}
	if r.Chance(0.7) {
		st := bulkStatuses[req.Action]
		f.Status = st[r.IntN(len(st))]
	}
	if r.Chance(0.3) {
		f.OlderThan = r.DurationBetween(time.Second, s.sc.Chaos.D()/2).Truncate(time.Millisecond)
	}
	if r.Chance(0.3) {
		f.Text = strconv.Itoa(r.IntN(10)) // a digit of the payload's {"n":N}
	}
	f.All = f.Queue == "" && f.Status == "" && f.OlderThan == 0 && f.Text == ""
	return req
}

// bulkMarks notes what a bulk action reached.
func (s *sim) bulkMarks(req worker.BulkRequest, res worker.BulkResult) {
	if res.Done > req.BatchSize {
		s.res.Marks.set(MarkBulkBatches)
	}
	if req.Action == worker.BulkDelete && req.Filter.Status == store.Running && res.Refused > 0 {
		s.res.Marks.set(MarkBulkRefusedRunning)
	}
	if req.DryRun && res.Matched > 0 {
		s.res.Marks.set(MarkBulkDryRun)
	}
	if req.Action == worker.BulkRetry && res.Done > 0 {
		s.res.Marks.set(MarkBulkRetried)
	}
}

// clientStore is the store as the simulator's operator reaches it: each
// transaction is a client transaction (storeTx), so that worker.Client
// runs on the simulated store as on a real one.
type clientStore struct{ s *sim }

func (c clientStore) InTx(_ context.Context, fn func(store.Tx) error) error { return c.s.storeTx(fn) }

func (c clientStore) Listen(context.Context) (<-chan store.Notification, error) {
	return nil, errors.New("sim: the operator's client does not listen")
}
