package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tickwork/tickwork/internal/redact"
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

// newFlagSet returns a flag set for one subcommand whose -help output, on
// out, starts with synopsis and lists, for every flag, the environment
// variable that also sets it. Every subcommand has flags, so the list is
// never empty.
func newFlagSet(name, synopsis string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s\n", synopsis)
		fmt.Fprintf(fs.Output(), "\nFlags (each also read from the environment variable named in brackets; the flag wins):\n")
		fs.PrintDefaults()
	}
	return fs
}

// envLister is a flag that may be given several times; its environment
// variable holds several values, split by envItems.
type envLister interface {
	envItems(value string) []string
	envSyntax() string
}

// parseFlags parses the command line, then applies environment variables
// to the flags it did not set: a flag given on the command line wins over
// the environment, for repeatable flags too. It returns the positional
// arguments. A bad value, from either source, is a usageError naming where
// it came from; -help prints the usage on the flag set's output and is
// flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string, env lookupEnv) ([]string, error) {
	fs.VisitAll(func(f *flag.Flag) {
		if strings.HasSuffix(f.Usage, "]") {
			return
		}
		f.Usage += " [" + envName(f.Name)
		if l, ok := f.Value.(envLister); ok {
			f.Usage += ", " + l.envSyntax()
		}
		f.Usage += "]"
	})
	// The flag package prints errors and the usage itself; report does the
	// former and -help the latter, on standard output.
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return nil, err
	}
	if err != nil {
		return nil, &usageError{msg: tidyFlagError(err.Error())}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if envErr == nil && !given[f.Name] {
			envErr = applyEnv(f, env)
		}
	})
	if envErr != nil {
		return nil, envErr
	}
	return fs.Args(), nil
}

// applyEnv sets f from its environment variable, if that is set.
func applyEnv(f *flag.Flag, env lookupEnv) error {
	name := envName(f.Name)
	v, ok := env(name)
	if !ok || (v == "" && !isStringFlag(f)) {
		// An empty variable counts as unset, except for a string flag,
		// where "" can mean something (-metrics-addr "").
		return nil
	}
	items := []string{v}
	if l, ok := f.Value.(envLister); ok {
		items = l.envItems(v)
	}
	for _, item := range items {
		if err := f.Value.Set(item); err != nil {
			return usagef("environment variable %s=%s: %v", name, shown(redactIfURL(f.Name, item)), err)
		}
	}
	return nil
}

// flagValueError is how the flag package reports a value its flag refused;
// it quotes the whole value.
var flagValueError = regexp.MustCompile(`(?s)^invalid (?:boolean )?value (".*") for (?:flag )?(-\S+): (.*)$`)

// tidyFlagError cuts a long value out of the flag package's message.
func tidyFlagError(msg string) string {
	m := flagValueError.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	value, err := strconv.Unquote(m[1])
	if err != nil {
		return msg
	}
	return fmt.Sprintf("%s %s: %s", m[2], shown(value), m[3])
}

// warnUnknownEnv names every TICKWORK_ variable in environ that no command
// of the binary reads: most likely a typo that silently changes nothing.
func warnUnknownEnv(w io.Writer, environ []string) {
	known := knownEnvNames()
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TICKWORK_") && !known[name] {
			fmt.Fprintf(w, "worker: warning: ignoring environment variable %s: no flag of any command reads it (see 'worker <command> -help')\n", shown(name))
		}
	}
}

// knownEnvNames are the variables the binary reads: one per flag of every
// command, and TICKWORK_MUTANT in builds with planted bugs.
func knownEnvNames() map[string]bool {
	known := map[string]bool{"TICKWORK_MUTANT": true}
	for _, register := range []func(*flag.FlagSet){
		new(runFlags).register, new(enqueueFlags).register, new(listFlags).register,
	} {
		fs := flag.NewFlagSet("", flag.ContinueOnError)
		register(fs)
		fs.VisitAll(func(f *flag.Flag) { known[envName(f.Name)] = true })
	}
	return known
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
		return redact.ConnString(v)
	}
	return v
}

// dbFlags are the flags every subcommand that talks to the database takes.
type dbFlags struct {
	url            string
	schema         string
	connectTimeout time.Duration
	pooler         poolerFlags
	net            netFlags
}

func (d *dbFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.url, "database-url", "", "PostgreSQL URL, e.g. postgres://user:pass@host:5432/db?sslmode=disable (the password is never printed)")
	fs.StringVar(&d.schema, "schema", "tickwork", "schema that holds the queue tables; independent deployments may share a database under different schemas")
	durationVar(fs, &d.connectTimeout, "connect-timeout", 30*time.Second, 0, maxTimeout, "how long to keep retrying a database that is unreachable at start before giving up")
	d.pooler.register(fs)
	d.net.register(fs)
}

// dbFlagSet returns the flag set of a command that talks to the database,
// with the database flags registered.
func (c *cli) dbFlagSet(name, synopsis string) (*flag.FlagSet, *dbFlags) {
	fs := newFlagSet(name, synopsis, c.stdout)
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
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: redact.ReplaceAttr}
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
	rest, err := c.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %s (flags go before arguments; this command takes none)", shown(rest[0]))
	}
	return nil
}

// parseFlags parses fs from args and the environment (the package's
// parseFlags) and warns about TICKWORK_ variables no command reads.
func (c *cli) parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	rest, err := parseFlags(fs, args, c.env)
	if err == nil {
		warnUnknownEnv(c.stderr, c.environ())
	}
	return rest, err
}

// defaultLogger is the logger of the short-lived commands: text at info
// level on standard error.
func (c *cli) defaultLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{ReplaceAttr: redact.ReplaceAttr}))
}
