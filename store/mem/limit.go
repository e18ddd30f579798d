package mem

import (
	"context"

	"github.com/tickwork/tickwork/store/internal/rules"
)

// SetQueueLimit sets the queue's limit (0: none). Reserve counts the
// queue's running jobs against it (openQueues), so a limit set below what
// runs admits nothing until fewer than the limit run.
func (t *tx) SetQueueLimit(_ context.Context, name string, limit int) error {
	if err := rules.ValidateQueueLimit(name, limit); err != nil {
		return err
	}
	return t.editQueue("limit", name, rules.LimitEdit(limit))
}

// runningInQueue counts the queue's running rows.
func (s *Store) runningInQueue(name string) int {
	n := 0
	for _, running := range s.running {
		for _, id := range running {
			if s.jobs[id].Queue == name {
				n++
			}
		}
	}
	return n
}
