package console

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// boundsServer serves a fresh schema holding one job with payload doc.
func boundsServer(t testing.TB, opts Options, doc string) (*httptest.Server, *Server, ulid.ULID) {
	t.Helper()
	st := pgtest.Open(t, nil)
	id := insertJob(t, st, doc)
	opts.Store = st
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv, s, id
}

func insertJob(t testing.TB, st *pg.Store, doc string) ulid.ULID {
	t.Helper()
	ctx := context.Background()
	var id ulid.ULID
	err := st.InTx(ctx, func(tx store.Tx) error {
		now, err := tx.Now(ctx)
		if err != nil {
			return err
		}
		id = clockrng.NewULID(now, clockrng.NewRand(1))
		_, err = tx.InsertJobs(ctx, []store.NewJob{{ID: id, Queue: "q", Payload: json.RawMessage(doc)}})
		return err
	})
	if err != nil {
		t.Fatalf("insert a job with a %d-byte payload: %v", len(doc), err)
	}
	return id
}

func get(t testing.TB, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// deepPayload is a valid document nested depth deep, the shape whose pretty
// form grows with the square of its depth.
func deepPayload(depth int) string {
	return strings.Repeat(`{"a":[`, depth/2) + `1` + strings.Repeat(`]}`, depth/2)
}

func TestDeepPayloadPageIsBounded(t *testing.T) {
	doc := deepPayload(9990)
	srv, _, id := boundsServer(t, Options{}, doc)
	for _, path := range []string{"/jobs/" + id.String(), "/api/jobs/" + id.String()} {
		start := time.Now()
		status, body := get(t, srv.URL+path)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d\n%.500s", path, status, body)
		}
		// The document cut at 64 KiB and the rest of the page.
		if len(body) > 3*maxShownJSON {
			t.Errorf("GET %s: %d bytes (in %v) for a %d-byte payload, want at most %d", path, len(body), time.Since(start), len(doc), 3*maxShownJSON)
		}
		if !strings.Contains(body, "/api/jobs/"+id.String()+"/payload") && !strings.Contains(body, `"payload_cut": true`) {
			t.Errorf("GET %s: the cut payload neither links to nor flags the whole", path)
		}
	}
	status, whole := get(t, srv.URL+"/api/jobs/"+id.String()+"/payload")
	if status != http.StatusOK || strings.ReplaceAll(whole, " ", "") != doc {
		t.Errorf("the whole payload: %d, %d bytes, want the %d-byte document", status, len(whole), len(doc))
	}
	if status, body := get(t, srv.URL+"/api/jobs/"+id.String()+"/nothing"); status != http.StatusNotFound || !strings.Contains(body, "payload, metadata or output") {
		t.Errorf("an unknown document: %d %s", status, body)
	}
}

func TestJobPageHidesEveryFamilyOfSecret(t *testing.T) {
	secrets := map[string]string{
		"pwd": "pwd-s3cret", "jwt": "jwt-s3cret", "creds": "creds-s3cret", "passphrase": "pp-s3cret",
		"privateKey": "pk-s3cret", "X-Api-Key": "xak-s3cret", "refresh_token": "rt-s3cret", "sessionid": "sid-s3cret",
		"sig": "sig-s3cret", "Cookie": "cookie-s3cret",
	}
	doc := map[string]any{"dsn": "host=db user=app password=dsn-s3cret dbname=app",
		"DATABASE_URL": "postgres://app:url-s3cret@db/app", "monkey": "banana", "keyboard": "qwerty"}
	for k, v := range secrets {
		doc[k] = v
	}
	raw, _ := json.Marshal(doc)
	srv, _, id := boundsServer(t, Options{}, string(raw))
	for _, path := range []string{"/jobs/" + id.String(), "/api/jobs/" + id.String(), "/api/jobs/" + id.String() + "/payload"} {
		_, body := get(t, srv.URL+path)
		for _, s := range append(mapValues(secrets), "dsn-s3cret", "url-s3cret") {
			if strings.Contains(body, s) {
				t.Errorf("GET %s shows %s", path, s)
			}
		}
		for _, kept := range []string{"banana", "qwerty", "host=db"} {
			if !strings.Contains(body, kept) {
				t.Errorf("GET %s lost %s", path, kept)
			}
		}
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func TestTextParametersMustBeUTF8WithoutNUL(t *testing.T) {
	srv, _, _ := boundsServer(t, Options{}, `{}`)
	for _, c := range []struct{ query, name string }{
		{"q=%00", "q="}, {"q=%FF%FE", "q="}, {"queue=a%00b", "queue="}, {"queue=%C3", "queue="},
		{"status=%00", "status="}, {"q=" + strings.Repeat("x", maxSearchText+1), "q is 201 characters"},
	} {
		for _, path := range []string{"/jobs?", "/api/jobs?"} {
			status, body := get(t, srv.URL+path+c.query)
			if status != http.StatusBadRequest || !strings.Contains(body, c.name) {
				t.Errorf("GET %s%.40s: %d, want 400 naming %q:\n%.300s", path, c.query, status, c.name, body)
			}
		}
	}
	if status, _ := get(t, srv.URL+"/api/jobs?q="+url.QueryEscape(strings.Repeat("é", maxSearchText))); status != http.StatusOK {
		t.Errorf("a search of %d characters: %d, want 200", maxSearchText, status)
	}
}

func TestStatementsEndAtTheQueryTimeout(t *testing.T) {
	_, s, _ := boundsServer(t, Options{QueryTimeout: 50 * time.Millisecond}, `{}`)
	err := s.readTx(context.Background(), func(db pgx.Tx, _ store.Tx) error {
		_, err := db.Exec(context.Background(), "SELECT pg_sleep(5)")
		return err
	})
	var he *httpError
	if !errors.As(err, &he) || he.status != http.StatusServiceUnavailable || !strings.Contains(err.Error(), "50ms limit") {
		t.Fatalf("a 5 s statement under a 50 ms timeout: %v, want a 503 naming the limit", err)
	}
}

// TestSearchesAreBoundedAndLeaveThePool holds every search slot and every
// waiting place, as slow searches would: a further search is refused at
// once with a 503 that says why, while the overview, a job's page and
// /metrics still answer from the connections searches cannot take.
func TestSearchesAreBoundedAndLeaveThePool(t *testing.T) {
	srv, s, id := boundsServer(t, Options{QueryTimeout: time.Second}, `{}`)
	if slots, conns := cap(s.search.slots), s.opts.Store.Pool().Config().MaxConns; int32(slots) > conns/2 {
		t.Fatalf("%d search slots on a pool of %d leave too few connections", slots, conns)
	}
	for range cap(s.search.slots) {
		s.search.slots <- struct{}{}
	}
	start := time.Now()
	status, body := get(t, srv.URL+"/api/jobs?q=hook")
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "text searches are running") || time.Since(start) < time.Second {
		t.Errorf("a search with every slot taken: %d after %v, want 503 after the 1s wait:\n%s", status, time.Since(start), body)
	}
	for range cap(s.search.waiters) {
		s.search.waiters <- struct{}{}
	}
	start = time.Now()
	if status, _ := get(t, srv.URL+"/api/jobs?q=hook"); status != http.StatusServiceUnavailable || time.Since(start) > 500*time.Millisecond {
		t.Errorf("a search with every place taken: %d after %v, want 503 at once", status, time.Since(start))
	}
	for _, path := range []string{"/api/", "/api/jobs/" + id.String(), "/metrics", "/api/jobs?q=" + id.String(), "/api/jobs?queue=q"} {
		if status, body := get(t, srv.URL+path); status != http.StatusOK {
			t.Errorf("GET %s while searches are full: %d\n%.300s", path, status, body)
		}
	}
}
