package console

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/tickwork/tickwork/internal/names"
)

// The console serves only the host names it is told of. Reads need no
// login, so without this a web page the operator visits could point its
// own name at the console's address (DNS rebinding) and read every job as
// if it were that page's own site. Rebinding needs a name that its owner
// controls, so IP addresses are always served, and so are localhost and
// names under .localhost, which browsers resolve to this machine
// themselves; any other name must be listed in Options.AllowedHosts.

// hostNames is the set of names served besides IP addresses and
// localhost: lower case, without port or trailing dot.
type hostNames map[string]bool

func newHostNames(allowed []string) (hostNames, error) {
	h := hostNames{}
	for _, n := range allowed {
		name := normHost(n)
		if name == "" || strings.ContainsAny(name, "/:@ \t") {
			return nil, fmt.Errorf("console: allowed host %s is not a host name (want a name such as console.example.com, without scheme or port)", names.Quote(n))
		}
		h[name] = true
	}
	return h, nil
}

// normHost is host in lower case without its trailing dot.
func normHost(host string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
}

// allows reports whether a request for Host header value host is served.
func (h hostNames) allows(host string) bool {
	if name, _, err := net.SplitHostPort(host); err == nil {
		host = name
	}
	host = normHost(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	return host == "localhost" || strings.HasSuffix(host, ".localhost") || h[host]
}

// checkHost answers 421 Misdirected Request to a request for a host name
// not served, before anything else runs.
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.hosts.allows(r.Host) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusMisdirectedRequest)
		fmt.Fprintf(w, "421 Misdirected Request: this console does not serve the host name %s.\n"+
			"It serves IP addresses, localhost and the names it was given (worker console -allowed-hosts),\n"+
			"so that another site cannot reach it through a name of its own (DNS rebinding).\n", names.Quote(r.Host))
	})
}

// safeNext keeps a redirect target on this site: a path (with query and
// fragment) that a browser, resolving it against the console's own URL,
// keeps on the console's origin. It refuses anything a browser would read
// otherwise or in a way of its own: control characters and spaces (a
// browser drops tabs and newlines, so "/\t/evil.example" is
// "//evil.example"), backslashes (read as slashes), non-ASCII, escaped
// dots, slashes, backslashes and control characters in the path, and any
// path that is, or becomes once its dot segments are resolved, "//host".
// Anything else becomes "/".
func safeNext(next string) string {
	const fallback = "/"
	if len(next) == 0 || len(next) > 2048 || next[0] != '/' {
		return fallback
	}
	for i := 0; i < len(next); i++ {
		if c := next[i]; c <= ' ' || c >= 0x7f || c == '\\' {
			return fallback
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return fallback
	}
	// Escaped dots, slashes and backslashes, and escaped control
	// characters, in the path are needed by no console page and resolved
	// differently by different parsers.
	rawPath, _, _ := strings.Cut(next, "?")
	rawPath, _, _ = strings.Cut(rawPath, "#")
	if lower := strings.ToLower(rawPath); strings.Contains(lower, "%2e") || strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") {
		return fallback
	}
	if strings.ContainsFunc(u.Path, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return fallback
	}
	if p := u.Path; strings.HasPrefix(p, "//") || strings.HasPrefix(removeDots(p), "//") || strings.Contains(p, `\`) {
		return fallback
	}
	return next
}

// removeDots resolves the "." and ".." segments of path p, which starts
// with "/", as a browser does: unlike path.Clean it keeps empty segments,
// so "/a/..//b" becomes "//b".
func removeDots(p string) string {
	segs := strings.Split(p, "/")[1:]
	var out []string
	for i, seg := range segs {
		last := i == len(segs)-1
		switch seg {
		case ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, seg)
			continue
		}
		if last {
			out = append(out, "")
		}
	}
	return "/" + strings.Join(out, "/")
}
