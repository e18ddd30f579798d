package main

import (
	"context"
	"fmt"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/sim"
	"github.com/tickwork/tickwork/store"
)

// readRows returns every jobs row and every workers row of the run, in id
// order, as the checker reads them, through the same store the workers use.
func (d *driverDB) readRows(ctx context.Context) ([]props.JobRow, []props.WorkerRow, error) {
	var jobs []props.JobRow
	var workers []props.WorkerRow
	err := d.store.InTx(ctx, func(tx store.Tx) error {
		jobs, workers = nil, nil
		for f := (store.JobFilter{Limit: 1000}); ; {
			page, err := tx.ListJobs(ctx, f)
			if err != nil {
				return err
			}
			for i := range page {
				jobs = append(jobs, *sim.JobRow(&page[i]))
			}
			if len(page) < f.Limit {
				break
			}
			f.After = page[len(page)-1].ID
		}
		ws, err := tx.ListWorkers(ctx)
		for i := range ws {
			workers = append(workers, *sim.WorkerRow(&ws[i]))
		}
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read the final rows: %w", err)
	}
	return jobs, workers, nil
}
