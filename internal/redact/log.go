package redact

import "log/slog"

// ReplaceAttr is a slog.HandlerOptions.ReplaceAttr that hides secrets in
// log lines: the value of an attribute whose key is secret by name, and
// the secrets Text finds in string and error values.
func ReplaceAttr(_ []string, a slog.Attr) slog.Attr {
	if Name(a.Key) {
		return slog.String(a.Key, Mask)
	}
	switch v := a.Value.Resolve(); {
	case v.Kind() == slog.KindString:
		return slog.String(a.Key, Text(v.String()))
	case v.Kind() == slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, Text(err.Error()))
		}
	}
	return a
}
