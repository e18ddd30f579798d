package console

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestSafeNextKeepsTheBrowserHome: every next= that a browser could read
// as another site, or that leaves the path's first segment empty once
// resolved, becomes "/"; ordinary console paths pass untouched.
func TestSafeNextKeepsTheBrowserHome(t *testing.T) {
	hostile := []string{
		"/\t/evil.example", "/\n/evil.example", "/\r\n/evil.example", "/\x00/evil.example", "/\x0b/evil.example",
		"/\x7f/evil.example", "\t//evil.example", " /x", "/ /evil.example", "/\u00a0/evil.example", "/\u3000/evil.example",
		"//evil.example", "///evil.example", "////evil.example/x", "//evil.example/%2e%2e",
		`/\evil.example`, `\\evil.example`, `/\/evil.example`, `\/evil.example`, `/%5Cevil.example`, `/%5c%5cevil.example`,
		"/%2F/evil.example", "/%2f%2fevil.example", "/%2e%2e//evil.example", "/%2E/%2E%2E//evil.example",
		"/.//evil.example", "/..//evil.example", "/./..//evil.example", "/a/../..//evil.example", "/a/..//evil.example",
		"https://evil.example/", "http:evil.example", "http:/evil.example", "HTTP://evil.example", "javascript:alert(1)",
		"data:text/html,x", "evil.example", "./evil", "../evil", "?next=x", "#x", "", "/\u2215evil.example", "/\uff0fevil.example",
		"/" + strings.Repeat("a", 3000),
	}
	for _, next := range hostile {
		if got := safeNext(next); got != "/" {
			t.Errorf("safeNext(%q) = %q, want /", next, got)
		}
	}
	fine := []string{
		"/", "/jobs", "/jobs/01ARZ3NDEKTSV4RRFFQ69G5FAV", "/jobs?queue=webhook&status=failed",
		"/jobs?q=a%20b&next=//evil.example", "/workers#leader", "/jobs/", "/@evil.example", "/jobs?x=%2F%2F",
	}
	for _, next := range fine {
		if got := safeNext(next); got != next {
			t.Errorf("safeNext(%q) = %q, want it kept", next, got)
		}
	}
}

// TestLoginRedirectStaysHome logs in over HTTP with hostile next values
// (as the form would carry them) and checks where the redirect points,
// read as a browser reads a Location header.
func TestLoginRedirectStaysHome(t *testing.T) {
	srv := serve(t, Options{Store: pgtest.Open(t, nil), AdminToken: adminToken})
	base, _ := url.Parse(srv.URL + "/login")
	for _, next := range []string{"/\t/evil.example", "/%09/evil.example", `/\evil.example`, "//evil.example", "/..//evil.example"} {
		req := newRequest(t, "POST", srv.URL+"/login", url.Values{"token": {adminToken}, "next": {next}}.Encode())
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || loc != "/" {
			t.Errorf("login with next=%q: %s to %q, want 303 to /", next, resp.Status, loc)
		}
		if to, err := base.Parse(asBrowserReads(loc)); err != nil || to.Host != base.Host {
			t.Errorf("login with next=%q sends the browser to %v (%v)", next, to, err)
		}
	}
}

// asBrowserReads applies what a browser's URL parser does before anything
// else: drop tabs and newlines, read backslashes as slashes.
func asBrowserReads(loc string) string {
	return strings.NewReplacer("\t", "", "\n", "", "\r", "", `\`, "/").Replace(strings.TrimSpace(loc))
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// TestHostCheck sends raw requests naming hosts: IP addresses, localhost
// and the configured name are served, any other name gets 421 on every
// path, the pages, their JSON and the metrics alike.
func TestHostCheck(t *testing.T) {
	srv := serve(t, Options{Store: pgtest.Open(t, nil), AllowedHosts: []string{"console.example.com"}})
	addr := strings.TrimPrefix(srv.URL, "http://")
	served := []string{"127.0.0.1", addr, "localhost", "LocalHost:8080", "localhost.", "app.localhost", "[::1]:80",
		"10.1.2.3", "[2001:db8::1]", "console.example.com", "Console.Example.COM.:443"}
	refused := []string{"evil.example", "evil.example:" + strings.Split(addr, ":")[1], "console.example.com.evil.example",
		"localhost.evil.example", "127.0.0.1.nip.io", "example.com", "0x7f.evil", ""}
	for _, path := range []string{"/", "/api/", "/jobs", "/metrics", "/login"} {
		for _, host := range served {
			if status, _ := rawGet(t, addr, host, path); status != http.StatusOK {
				t.Errorf("GET %s with Host %q: %d, want 200", path, host, status)
			}
		}
		for _, host := range refused {
			status, body := rawGet(t, addr, host, path)
			if status != http.StatusMisdirectedRequest || !strings.Contains(body, "does not serve the host name") || strings.Contains(body, "queues") {
				t.Errorf("GET %s with Host %q: %d, want 421 and a sentence, got\n%.300s", path, host, status, body)
			}
		}
	}
	if _, err := New(Options{Store: pgtest.Open(t, nil), AllowedHosts: []string{"https://x.example/"}}); err == nil || !strings.Contains(err.Error(), `"https://x.example/"`) {
		t.Errorf("an allowed host with a scheme: error %v, want one naming it", err)
	}
}

// rawGet writes a GET for path with exactly the Host header host (none
// when empty, as HTTP/1.0 allows) and returns the status and body.
func rawGet(t *testing.T, addr, host, path string) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := "GET " + path + " HTTP/1.0\r\n"
	if host != "" {
		req = "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n"
	}
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET %s with Host %q: %v", path, host, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
