package mem

import (
	"context"
	"sync"

	"github.com/tickwork/tickwork/store"
)

// ListenBuffer is the capacity of each Listen channel; notifications that
// find it full are dropped, as the contract allows.
const ListenBuffer = 256

// listeners holds the channels returned by Listen. It has its own lock so
// that a subscription ending never waits for a transaction.
type listeners struct {
	mu   sync.Mutex
	next int
	chs  map[int]chan store.Notification
}

// Listen returns a channel that receives the notifications of every commit
// from now until ctx is done, when it is closed. Sends never block: a full
// channel loses the notification.
func (s *Store) Listen(ctx context.Context) (<-chan store.Notification, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ch := make(chan store.Notification, ListenBuffer)
	l := &s.listeners
	l.mu.Lock()
	if l.chs == nil {
		l.chs = map[int]chan store.Notification{}
	}
	key := l.next
	l.next++
	l.chs[key] = ch
	l.mu.Unlock()
	context.AfterFunc(ctx, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.chs, key)
		close(ch)
	})
	return ch, nil
}

// send offers notes to every listener without blocking. The order in which
// listeners are served does not matter: each gets the same notes in order.
func (l *listeners) send(notes []store.Notification) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ch := range l.chs {
		for _, n := range notes {
			select {
			case ch <- n:
			default:
			}
		}
	}
}
