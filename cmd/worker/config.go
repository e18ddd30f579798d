package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"
)

// Exit statuses of the binary.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and failed (database down, job not found, ...)
	exitUsage   = 2 // the command line was wrong
)

// usageError is a mistake in the command line: the binary prints it with a
// pointer to -help and exits with exitUsage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// lookupEnv reads one environment variable; tests pass their own.
type lookupEnv func(name string) (string, bool)

// envName is the environment variable that sets flag name when the command
// line does not: TICKWORK_<NAME> with dashes as underscores, except the
// database URL, which follows the common DATABASE_URL convention.
func envName(flagName string) string {
	if flagName == "database-url" {
		return "DATABASE_URL"
	}
	return "TICKWORK_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// newFlagSet returns a flag set for one subcommand whose -help output
// starts with synopsis and lists, for every flag, the environment variable
// that also sets it. Every subcommand has flags, so the list is never
// empty.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s\n", synopsis)
		fmt.Fprintf(fs.Output(), "\nFlags (each also read from the environment variable named in brackets; the flag wins):\n")
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags applies environment variables to every flag of fs, then the
// command line, so a flag given on the command line wins over the
// environment. It returns the positional arguments. A bad value, from either
// source, is a usageError naming where it came from; -help is flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string, env lookupEnv) ([]string, error) {
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		name := envName(f.Name)
		if !strings.HasSuffix(f.Usage, "]") {
			f.Usage += " [" + name + "]"
		}
		v, ok := env(name)
		if !ok || envErr != nil || (v == "" && !isStringFlag(f)) {
			// An empty variable counts as unset, except for a string
			// flag, where "" can mean something (-metrics-addr "").
			return
		}
		if err := fs.Set(f.Name, v); err != nil {
			envErr = usagef("environment variable %s=%q: %v", name, redactIfURL(f.Name, v), err)
		}
	})
	if envErr != nil {
		return nil, envErr
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, &usageError{msg: err.Error()}
	}
	return fs.Args(), nil
}

func isStringFlag(f *flag.Flag) bool {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	_, isString := g.Get().(string)
	return isString
}

func redactIfURL(flagName, v string) string {
	if flagName == "database-url" || flagName == "listen-url" {
		return redactURL(v)
	}
	return v
}

// dbFlags are the flags every subcommand that talks to the database takes.
type dbFlags struct {
	url            string
	schema         string
	connectTimeout time.Duration
	pooler         poolerFlags
}

func (d *dbFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.url, "database-url", "", "PostgreSQL URL, e.g. postgres://user:pass@host:5432/db?sslmode=disable (the password is never printed)")
	fs.StringVar(&d.schema, "schema", "tickwork", "schema that holds the queue tables; independent deployments may share a database under different schemas")
	fs.DurationVar(&d.connectTimeout, "connect-timeout", 30*time.Second, "how long to keep retrying a database that is unreachable at start before giving up")
	d.pooler.register(fs)
}

// dbFlagSet returns the flag set of a command that talks to the database,
// with the database flags registered.
func (c *cli) dbFlagSet(name, synopsis string) (*flag.FlagSet, *dbFlags) {
	fs := newFlagSet(name, synopsis, c.stderr)
	db := new(dbFlags)
	db.register(fs)
	return fs, db
}

func (d *dbFlags) validate() error {
	if d.url == "" {
		return usagef("no database: set DATABASE_URL or pass -database-url")
	}
	if d.schema == "" {
		return usagef("-schema must not be empty")
	}
	if d.connectTimeout < 0 {
		return usagef("-connect-timeout %v must not be negative", d.connectTimeout)
	}
	return nil
}

// logFlags choose how the binary logs; logs always go to standard error.
type logFlags struct {
	level  string
	format string
}

func (l *logFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.level, "log-level", "info", "least severe level logged: debug, info, warn or error")
	fs.StringVar(&l.format, "log-format", "text", "log format: text or json")
}

func (l *logFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(l.level)); err != nil {
		return nil, usagef("-log-level %q: want debug, info, warn or error", l.level)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch l.format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usagef("-log-format %q: want text or json", l.format)
}

// osEnv is the process environment.
func osEnv(name string) (string, bool) { return os.LookupEnv(name) }

// parseNoArgs parses the flags of a command that takes no positional
// arguments.
func (c *cli) parseNoArgs(fs *flag.FlagSet, args []string) error {
	rest, err := parseFlags(fs, args, c.env)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q (flags go before arguments; this command takes none)", rest[0])
	}
	return nil
}

// defaultLogger is the logger of the short-lived commands: text at info
// level on standard error, with the database password scrubbed.
func (c *cli) defaultLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(scrubWriter{w: c.stderr, c: c}, nil))
}
