package console

import (
	"context"
	"errors"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// Parent is a job a waiting job still waits for: the current attempt of
// one of its parents, and its status ("deleted" if it is gone).
type Parent struct {
	ID     ulid.ULID    `json:"id"`
	Status store.Status `json:"status"`
}

// waitsFor returns the parents waiting job j still waits for; none for a
// job that does not wait.
func waitsFor(ctx context.Context, st store.Tx, j store.Job) ([]Parent, error) {
	out := make([]Parent, 0, len(j.Parents))
	for _, id := range j.Parents {
		p := Parent{ID: id, Status: "deleted"}
		switch row, err := st.GetJob(ctx, id); {
		case err == nil:
			p.Status = row.Status
		case !errors.Is(err, store.ErrNotFound):
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
