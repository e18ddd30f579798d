package console

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/browser"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestDoorInBrowser drives Chromium through the console's door: a login
// whose next= would send the browser elsewhere stays on the console; a
// name that resolves to the console but is not one of its names (DNS
// rebinding) reads nothing; and a session logged out is refused when its
// old cookie comes back.
func TestDoorInBrowser(t *testing.T) {
	st := pgtest.Open(t, nil)
	job := clockrng.NewULID(time.Now(), clockrng.NewRand(1))
	err := st.InTx(t.Context(), func(tx store.Tx) error {
		_, err := tx.InsertJobs(t.Context(), []store.NewJob{{ID: job, Queue: "email", Payload: json.RawMessage(`{}`)}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, Options{Store: st, AdminToken: adminToken, AllowedHosts: []string{"console.example"}})
	var evilHits atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		evilHits.Add(1)
		w.Write([]byte("<h1>evil</h1>"))
	}))
	defer evil.Close()
	home, _ := url.Parse(srv.URL)
	ctx := browser.New(t, chromedp.Flag("host-resolver-rules", "MAP rebind.example 127.0.0.1, MAP console.example 127.0.0.1"))

	t.Run("login redirect", func(t *testing.T) {
		evilHost := strings.TrimPrefix(evil.URL, "http://")
		for _, next := range []string{"/\t/" + evilHost, "/\n/" + evilHost, `/\` + evilHost, "//" + evilHost, "/..//" + evilHost, "/.%2F/" + evilHost} {
			browser.Do(t, ctx, "open the login page", chromedp.Navigate(srv.URL+"/login?next="+url.QueryEscape(next)), chromedp.WaitVisible(chromedp.CSS("#token")))
			browser.Do(t, ctx, "type the token", chromedp.SendKeys(chromedp.CSS("#token"), adminToken))
			browser.Eval[bool](t, ctx, `(() => { document.documentElement.dataset.before = "submit"; return true; })()`)
			browser.Do(t, ctx, "click log in", chromedp.Click(chromedp.CSS("#login")))
			// The page's form-action 'self' makes Chromium stop a form's
			// redirect to another site: the page then never changes.
			if err := browser.Until(ctx, landed); err != nil {
				t.Errorf("login with next=%q: the browser never left the login page (a redirect off the site, blocked): %v", next, err)
				continue
			}
			if host := browser.Eval[string](t, ctx, `location.host`); host != home.Host {
				t.Errorf("login with next=%q took the browser to %s, want %s", next, host, home.Host)
			}
		}
		if n := evilHits.Load(); n != 0 {
			t.Errorf("the other site got %d requests from the login redirects", n)
		}
	})

	t.Run("host names", func(t *testing.T) {
		for _, base := range []string{"http://rebind.example:" + home.Port()} {
			browser.Do(t, ctx, "open "+base, chromedp.Navigate(base+"/api/jobs"), chromedp.WaitReady(chromedp.CSS("body")))
			text := browser.Eval[string](t, ctx, `document.body.innerText`)
			if !strings.Contains(text, "does not serve the host name") || strings.Contains(text, job.String()) {
				t.Errorf("%s/api/jobs shows\n%.300s\nwant the refusal and no job", base, text)
			}
		}
		for _, base := range []string{"http://console.example:" + home.Port(), "http://localhost:" + home.Port()} {
			browser.Do(t, ctx, "open "+base, chromedp.Navigate(base+"/api/jobs"), chromedp.WaitReady(chromedp.CSS("body")))
			if text := browser.Eval[string](t, ctx, `document.body.innerText`); !strings.Contains(text, job.String()) {
				t.Errorf("%s/api/jobs shows\n%.300s\nwant the jobs", base, text)
			}
		}
	})

	t.Run("session ends at logout", func(t *testing.T) {
		browser.Do(t, ctx, "open the login page", chromedp.Navigate(srv.URL+"/login"), chromedp.WaitVisible(chromedp.CSS("#token")))
		submit(t, ctx, "#login", chromedp.SendKeys(chromedp.CSS("#token"), adminToken))
		submit(t, ctx, `#queues tr[data-queue="email"] button[data-action="pause"]`)
		if n := browser.Eval[int](t, ctx, `document.querySelectorAll('#queues button[data-action="resume"]').length`); n != 1 {
			t.Fatalf("after clicking pause: %d resume buttons, want 1", n)
		}
		old := sessionCookieOf(t, ctx, srv.URL)
		csrf := browser.Eval[string](t, ctx, `document.querySelector("#logout").form.querySelector("input[name=csrf]").value`)
		submit(t, ctx, "#logout")
		if n := browser.Eval[int](t, ctx, `document.querySelectorAll("#logout").length`); n != 0 {
			t.Fatal("still logged in after clicking log out")
		}
		browser.Do(t, ctx, "put the old cookie back", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, network.SetCookie, network.SetCookieParams{Name: old.Name, Value: old.Value, URL: srv.URL + "/",
				HTTPOnly: &old.HTTPOnly, SameSite: old.SameSite})
			return err
		}), chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#queues")))
		if n := browser.Eval[int](t, ctx, `document.querySelectorAll("#logout, #queues button").length`); n != 0 {
			t.Error("the logged-out session's cookie still opens a logged-in page")
		}
		if status := post(t, ctx, "/queues/resume", csrf); status != "403" {
			t.Errorf("resume with the logged-out session's cookie and form token: status %q, want 403", status)
		}
	})
}

// submit runs before (typing, say), clicks the button sel and waits for
// the page that the form's answer brings.
func submit(t *testing.T, ctx context.Context, sel string, before ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	browser.Do(t, ctx, "fill the form of "+sel, before...)
	browser.Eval[bool](t, ctx, `(() => { document.documentElement.dataset.before = "submit"; return true; })()`)
	browser.Do(t, ctx, "click "+sel, chromedp.Click(chromedp.CSS(sel)))
	browser.WaitFor(t, ctx, landed)
}

// landed holds once the page marked before a click is gone and its
// successor loaded.
const landed = `!document.documentElement.dataset.before && document.readyState === "complete"`

// sessionCookieOf reads the console's session cookie from the browser (it
// is HttpOnly: no script sees it).
func sessionCookieOf(t *testing.T, ctx context.Context, base string) *network.Cookie {
	t.Helper()
	res, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (network.GetCookiesResult, error) {
		return cdp.Call(ctx, tg, network.GetCookies, network.GetCookiesParams{URLs: []string{base + "/"}})
	})
	if err != nil {
		t.Fatalf("read the browser's cookies: %v", err)
	}
	for _, c := range res.Cookies {
		if c.Name == sessionCookie {
			if !c.HTTPOnly || c.SameSite != network.CookieSameSiteStrict {
				t.Errorf("session cookie in the browser: HttpOnly %v, SameSite %q; want HttpOnly, Strict", c.HTTPOnly, c.SameSite)
			}
			return c
		}
	}
	t.Fatalf("no %s cookie in the browser after logging in", sessionCookie)
	return nil
}
