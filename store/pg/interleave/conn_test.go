package interleave

import (
	"bytes"
	"io"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/tickwork/tickwork/clockrng"
)

// readAnswer sends backend messages a byte at a time to a gated connection
// whose round trip waits for one ReadyForQuery, as a victim if victim, and
// returns what the client read and what the controller recorded.
func readAnswer(t *testing.T, victim bool, msgs ...pgproto3.BackendMessage) ([]byte, []finishedTrip) {
	t.Helper()
	var wire []byte
	for _, m := range msgs {
		var err error
		if wire, err = m.Encode(wire); err != nil {
			t.Fatal(err)
		}
	}
	client, server := net.Pipe()
	defer server.Close()
	ctl := New(nil, clockrng.NewRand(1), Options{})
	c := &conn{Conn: client, ctl: ctl, label: "a"}
	ctl.adopt(c, 1)
	c.phase, c.waits, c.tracked, c.victim = sent, 1, true, victim
	go func() {
		for i := range wire {
			if _, err := server.Write(wire[i : i+1]); err != nil {
				return
			}
		}
	}()
	got := make([]byte, len(wire))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	if c.phase != idle {
		t.Fatal("the round trip did not end with its ReadyForQuery")
	}
	return got, c.finished
}

// TestReadFollowsAnswers: answers split anywhere reach the client intact,
// and the round trip ends with its tags and transaction status.
func TestReadFollowsAnswers(t *testing.T) {
	msgs := []pgproto3.BackendMessage{
		&pgproto3.CommandComplete{CommandTag: []byte("UPDATE 1")},
		&pgproto3.ReadyForQuery{TxStatus: 'T'},
	}
	want, _ := msgs[0].Encode(nil)
	want, _ = msgs[1].Encode(want)
	got, finished := readAnswer(t, false, msgs...)
	if !bytes.Equal(got, want) {
		t.Fatalf("client read %q, want %q", got, want)
	}
	if len(finished) != 1 || finished[0].ans.tags[0] != "UPDATE 1" || finished[0].ans.tx != 'T' {
		t.Fatalf("recorded %+v", finished)
	}
}

// TestReadRewritesVictimError: the cancelled victim's error reaches the
// client as a deadlock, even split a byte at a time.
func TestReadRewritesVictimError(t *testing.T) {
	got, finished := readAnswer(t, true,
		&pgproto3.ErrorResponse{Severity: "ERROR", Code: codeQueryCanceled, Message: msgUserCancel},
		&pgproto3.ReadyForQuery{TxStatus: 'E'})
	var e pgproto3.ErrorResponse
	if err := e.Decode(got[headerLen:]); err != nil || e.Code != codeDeadlockDetected {
		t.Fatalf("client read code %q (%v), want %s", e.Code, err, codeDeadlockDetected)
	}
	if len(finished) != 1 || finished[0].ans.code != codeDeadlockDetected {
		t.Fatalf("recorded %+v", finished)
	}
}
