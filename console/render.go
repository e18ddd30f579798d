package console

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

//go:embed templates/*.html
var templateFS embed.FS

var funcs = template.FuncMap{
	"age":   formatAge,
	"since": func(now, t time.Time) string { return formatAge(now.Sub(t).Seconds()) },
	"ts":    formatTime,
	"deref": func(t *time.Time) time.Time { return *t },
	"pct":   func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
	"id": func(id ulid.ULID) string {
		if id.IsZero() {
			return ""
		}
		return id.String()
	},
	"short": func(s string) string {
		if r := []rune(s); len(r) > 90 {
			return string(r[:89]) + "…"
		}
		return s
	},
	"chart":    throughputChart,
	"statuses": func() []store.Status { return allStatuses },
	"window":   func(sec int) string { return (time.Duration(sec) * time.Second).String() },
	"pageAt":   pageURL,
	"cut": func(id ulid.ULID, doc string) any {
		return struct {
			ID  ulid.ULID
			Doc string
			KiB int
		}{id, doc, maxShownJSON >> 10}
	},
}

// pages holds one template per page, each the layout plus the page's
// "content".
var pages = func() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, name := range []string{"overview", "workers", "jobs", "job", "bulk", "login", "error"} {
		out[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html"))
	}
	return out
}()

// view is what every page template receives.
type view struct {
	Page     string
	Data     any
	ReadOnly bool
	LoggedIn bool
	CSRF     string
	Path     string
}

// render writes page name with data. It renders into a buffer first so
// that a template error becomes a clean 500, not half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, data any) {
	v := view{Page: name, Data: data, ReadOnly: s.readOnly(), LoggedIn: s.loggedIn(r), CSRF: s.csrfToken(r), Path: r.URL.RequestURI()}
	var buf bytes.Buffer
	if err := pages[name].Execute(&buf, v); err != nil {
		s.opts.Logger.Error("console template failed", "page", name, "err", err)
		http.Error(w, "the page could not be drawn; see the console's log", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = buf.WriteTo(w) // the client went away; nothing to tell it
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04:05.000")
}

// formatAge writes seconds the way a person reads an age: 850ms, 12.3s,
// 4m05s, 3h07m, 2d04h.
func formatAge(sec float64) string {
	switch {
	case sec < 0:
		return "–"
	case sec < 1:
		return fmt.Sprintf("%.0fms", sec*1000)
	case sec < 60:
		return fmt.Sprintf("%.1fs", sec)
	}
	s := int64(math.Round(sec))
	switch {
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	case s < 86400:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	}
	return fmt.Sprintf("%dd%02dh", s/86400, s%86400/3600)
}

// pageURL is the jobs list with the query's filters and one cursor.
func pageURL(q JobQuery, cursor string, id ulid.ULID) string {
	v := q.values()
	if cursor != "" {
		v.Set(cursor, id.String())
	}
	u := url.URL{Path: "/jobs", RawQuery: v.Encode()}
	return u.String()
}
