package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// fakeAuthServer is a PostgreSQL server that asks for a cleartext password
// and rejects every login, as a server with a changed password would. The
// local test server trusts every login, so this is how a wrong password is
// produced. It returns the address and the passwords it received.
func fakeAuthServer(t *testing.T) (addr string, passwords func() []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		got  []string
		wg   sync.WaitGroup
		done = make(chan struct{})
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				stop := context.AfterFunc(contextOf(done), func() { conn.Close() })
				defer stop()
				_ = rejectLogin(conn, func(password string) {
					mu.Lock()
					got = append(got, password)
					mu.Unlock()
				})
			}()
		}
	}()
	t.Cleanup(func() {
		close(done)
		ln.Close()
		wg.Wait()
	})
	return ln.Addr().String(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// contextOf turns a closed-on-done channel into a context.
func contextOf(done <-chan struct{}) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-done
		cancel()
	}()
	return ctx
}

// rejectLogin speaks the start of the protocol on conn: it declines TLS,
// asks for a password, answers with the error PostgreSQL sends for a wrong
// one, after passing the password it was given to received.
func rejectLogin(conn net.Conn, received func(password string)) error {
	defer conn.Close()
	be := pgproto3.NewBackend(conn, conn)
	for {
		msg, err := be.ReceiveStartupMessage()
		if err != nil {
			return err
		}
		switch msg.(type) {
		case *pgproto3.SSLRequest, *pgproto3.GSSEncRequest:
			if _, err := conn.Write([]byte("N")); err != nil {
				return err
			}
			continue
		case *pgproto3.StartupMessage:
		default:
			return fmt.Errorf("unexpected startup message %T", msg)
		}
		break
	}
	be.Send(&pgproto3.AuthenticationCleartextPassword{})
	if err := be.Flush(); err != nil {
		return err
	}
	if err := be.SetAuthType(pgproto3.AuthTypeCleartextPassword); err != nil {
		return err
	}
	msg, err := be.Receive()
	if err != nil {
		return err
	}
	pw, ok := msg.(*pgproto3.PasswordMessage)
	if !ok {
		return fmt.Errorf("expected a password, got %T", msg)
	}
	received(pw.Password)
	be.Send(&pgproto3.ErrorResponse{Severity: "FATAL", Code: "28P01", Message: `password authentication failed for user "tick"`})
	_ = be.Flush()
	_, _ = io.Copy(io.Discard, conn)
	return nil
}

const secretPassword = "s3cret-Pa55word"

func TestWrongPasswordIsPermanentAndNeverPrinted(t *testing.T) {
	addr, passwords := fakeAuthServer(t)
	url := fmt.Sprintf("postgres://tick:%s@%s/queue?sslmode=disable", secretPassword, addr)
	code, stdout, stderr := runCLI(t, nil, "migrate", "-database-url", url, "-connect-timeout", "1m")
	if code != exitFailure {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitFailure, stderr)
	}
	if got := passwords(); len(got) != 1 || got[0] != secretPassword {
		t.Fatalf("server received passwords %q, want one attempt with the URL's password (a wrong password must not be retried)", got)
	}
	for _, want := range []string{`database "queue" on ` + addr + ` as user "tick"`, "password authentication failed", "check the user and password"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stdout+stderr, secretPassword) {
		t.Fatalf("output shows the password:\n%s%s", stdout, stderr)
	}
}

func TestUnreachableDatabaseRetriesThenGivesUp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connections are refused
	url := fmt.Sprintf("postgres://tick:%s@%s/queue?sslmode=disable", secretPassword, addr)
	code, stdout, stderr := runCLI(t, nil, "migrate", "-database-url", url, "-connect-timeout", "600ms")
	if code != exitFailure {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitFailure, stderr)
	}
	for _, want := range []string{"database unreachable; retrying", `database \"queue\" on ` + addr, "gave up after 600ms (-connect-timeout)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stdout+stderr, secretPassword) {
		t.Fatalf("output shows the password:\n%s%s", stdout, stderr)
	}
}

func TestUnknownHostIsPermanent(t *testing.T) {
	t.Parallel()
	target, err := parseDBTarget("postgres://tick:" + secretPassword + "@no-such-host.invalid/queue")
	if err != nil {
		t.Fatal(err)
	}
	err = waitForDatabase(context.Background(), target, time.Minute, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), `host "no-such-host.invalid" not found`) {
		t.Fatalf("waitForDatabase = %v, want a host-not-found error", err)
	}
	if strings.Contains(err.Error(), secretPassword) {
		t.Fatalf("error shows the password: %v", err)
	}
}

func TestWaitForDatabaseStopsOnCancel(t *testing.T) {
	target, err := parseDBTarget("postgres://tick@127.0.0.1:1/queue?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = waitForDatabase(ctx, target, time.Hour, slog.New(slog.DiscardHandler))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("waitForDatabase on a cancelled context = %v, want context.Canceled", err)
	}
}

// TestUnparsableDatabaseURLIsNotEchoed: a URL that does not parse cannot
// be split reliably into its password and the rest, so no part of it is
// printed; the message names the flag and the forms accepted.
func TestUnparsableDatabaseURLIsNotEchoed(t *testing.T) {
	t.Parallel()
	for _, url := range []string{
		"postgres//tick:" + secretPassword + "@somehost/somedb",
		"postgresql:/tick:" + secretPassword + "@somehost/somedb",
		"postgres://tick:" + secretPassword + "@somehost:notaport/somedb",
		"postgres://tick:pass/" + secretPassword + "@somehost/somedb",
		"host=somehost password='" + secretPassword,
	} {
		code, stdout, stderr := runCLI(t, nil, "migrate", "-database-url", url)
		if code != exitUsage || !strings.Contains(stderr, "-database-url: ") || !strings.Contains(stderr, "does not parse") {
			t.Errorf("%s: exit %d, want %d and a message naming -database-url:\n%s", url, code, exitUsage, stderr)
		}
		for _, part := range []string{secretPassword, "tick", "somehost", "somedb"} {
			if strings.Contains(stdout+stderr, part) {
				t.Errorf("%s: the output quotes %q:\n%s%s", url, part, stdout, stderr)
			}
		}
	}
}

// TestShortPasswordDoesNotMangleOutput: with password 0, scrubbing by
// substring turned every 0 of every line into xxxxx.
func TestShortPasswordDoesNotMangleOutput(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	url := fmt.Sprintf("postgres://tick:0@%s/queue0?sslmode=disable", addr)
	code, _, stderr := runCLI(t, nil, "migrate", "-database-url", url, "-connect-timeout", "300ms")
	if code != exitFailure {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitFailure, stderr)
	}
	if !strings.Contains(stderr, `database \"queue0\" on `+addr) || strings.Contains(stderr, "xxxxx") {
		t.Fatalf("stderr is mangled or does not name the target %s:\n%s", addr, stderr)
	}
}

// TestPermanentServerErrorIsNotRetried: a FATAL answer at startup, here an
// unknown run-time parameter (SQLSTATE 42704), is reported at once with the
// server's reason rather than retried as "unreachable".
func TestPermanentServerErrorIsNotRetried(t *testing.T) {
	t.Parallel()
	url := pg.WithParam(pgtest.URL(t), "no_such_setting_tickwork", "1")
	code, stdout, stderr := runCLI(t, nil, "migrate", "-database-url", url, "-connect-timeout", "1m")
	if code != exitFailure {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitFailure, stderr)
	}
	for _, want := range []string{"cannot use database", `unrecognized configuration parameter "no_such_setting_tickwork"`, "SQLSTATE 42704"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "retrying") || stdout != "" {
		t.Errorf("a permanent error was retried or reported as success:\n%s%s", stdout, stderr)
	}
}

// A stop signal while worker run or worker console still waits for its
// database is a shutdown with nothing to drain: exit 0, not a connection
// failure. Two waits: on a refused address between attempts, and inside
// an attempt on a server that accepts the connection and never answers.
func TestStopWhileConnectingIsACleanExit(t *testing.T) {
	refused, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedAddr := refused.Addr().String()
	refused.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 16) // accepted and never answered
	go func() {
		defer close(held)
		for {
			conn, err := silent.Accept()
			if err != nil {
				return
			}
			held <- conn
		}
	}()
	t.Cleanup(func() {
		silent.Close()
		for c := range held {
			c.Close()
		}
	})
	commands := []struct {
		name, stopped string
		args          []string
	}{
		{"run", "worker stopped before it started", []string{"run", "-metrics-addr", ""}},
		{"console", "console stopped before it started", []string{"console", "-addr", "127.0.0.1:0"}},
	}
	for _, cmd := range commands {
		t.Run(cmd.name+"/refused", func(t *testing.T) {
			stopWhileConnecting(t, cmd.args, refusedAddr, cmd.stopped, func(out string) bool {
				return strings.Contains(out, "database unreachable; retrying")
			})
		})
		t.Run(cmd.name+"/silent", func(t *testing.T) {
			before := len(held)
			stopWhileConnecting(t, cmd.args, silent.Addr().String(), cmd.stopped, func(string) bool {
				return len(held) > before
			})
		})
	}
}

// stopWhileConnecting starts the worker command args on the database at
// addr, stops it once waiting says from its output that it waits for the
// database, and requires exit 0 with stopped in the output.
func stopWhileConnecting(t *testing.T, args []string, addr, stopped string, waiting func(out string) bool) {
	url := fmt.Sprintf("postgres://tick:%s@%s/queue?sslmode=disable", secretPassword, addr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out lockedBuffer
	cl := &cli{stdout: &out, stderr: &out, env: fakeEnv(nil), environ: func() []string { return nil }, abandon: context.Background()}
	done := make(chan int, 1)
	go func() {
		done <- cl.main(ctx, append(args, "-database-url", url, "-connect-timeout", "1m"))
	}()
	for deadline := time.Now().Add(10 * time.Second); !waiting(out.String()); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s was not waiting for its database within 10s; output:\n%s", args[0], out.String())
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK || !strings.Contains(out.String(), stopped) || strings.Contains(out.String(), "gave up") {
			t.Fatalf("exit %d after a stop while connecting, want %d and %q; output:\n%s", code, exitOK, stopped, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not stop within 10s of the signal; output:\n%s", args[0], out.String())
	}
}
