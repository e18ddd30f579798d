package worker

import (
	"context"

	"github.com/tickwork/tickwork/internal/workerengine"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker/engine"
)

// engineSide is a worker as internal/workerengine shows it to the drivers
// of a core of their own, so that go doc ./worker shows none of it.
type engineSide struct{ w *Worker }

func (e engineSide) Execute(ctx context.Context, job store.Job) engine.Result {
	return e.w.executeInline(ctx, job)
}

func (e engineSide) CoreConfig() engine.Config { return e.w.lockedCoreConfig() }

func init() {
	workerengine.Of = func(w any) workerengine.Engine { return engineSide{w.(*Worker)} }
}
