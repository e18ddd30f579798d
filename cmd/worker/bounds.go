package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tickwork/tickwork/internal/format"
)

// Numeric flags and their environment variables accept only a documented
// range, so that a typo such as -concurrency 1000000000 is refused with
// the range instead of exhausting memory. The range is part of each flag's
// help text; a value outside it, or one that does not parse, is a usage
// error naming the flag or variable, the value and the expected form.

// intFlag is an integer flag within [min, max].
type intFlag struct {
	p        *int
	min, max int
}

// String is "0" for the zero intFlag the flag package makes to tell a
// zero default, which help then leaves out.
func (f intFlag) String() string {
	if f.p == nil {
		return "0"
	}
	return strconv.Itoa(*f.p)
}

func (f intFlag) Get() any { return *f.p }

func (f intFlag) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("want a whole number from %d to %d", f.min, f.max)
	}
	if n < f.min || n > f.max {
		return fmt.Errorf("out of range: want %d to %d", f.min, f.max)
	}
	*f.p = n
	return nil
}

// intVar defines an integer flag with default def, accepting min to max.
func intVar(fs *flag.FlagSet, p *int, name string, def, min, max int, usage string) {
	*p = def
	fs.Var(intFlag{p: p, min: min, max: max}, name, fmt.Sprintf("%s (`N` from %d to %d)", usage, min, max))
}

// durationFlag is a duration flag within [min, max].
type durationFlag struct {
	p        *time.Duration
	min, max time.Duration
}

func (f durationFlag) String() string {
	if f.p == nil {
		return fmtDuration(0)
	}
	return fmtDuration(*f.p)
}

func (f durationFlag) Get() any { return *f.p }

func (f durationFlag) Set(s string) error {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("want a duration such as 30s, 1500ms or 1m30s (units ms, s, m, h) from %s to %s", fmtDuration(f.min), fmtDuration(f.max))
	}
	if d < f.min || d > f.max {
		return fmt.Errorf("out of range: want %s to %s", fmtDuration(f.min), fmtDuration(f.max))
	}
	*f.p = d
	return nil
}

// durationVar defines a duration flag with default def, accepting min to
// max.
func durationVar(fs *flag.FlagSet, p *time.Duration, name string, def, min, max time.Duration, usage string) {
	*p = def
	fs.Var(durationFlag{p: p, min: min, max: max}, name, fmt.Sprintf("%s (`duration` from %s to %s)", usage, fmtDuration(min), fmtDuration(max)))
}

// fmtDuration writes whole hours and minutes without the zero units
// time.Duration.String adds: 24h, not 24h0m0s.
func fmtDuration(d time.Duration) string { return format.Period(d) }

// boolFlag is a boolean flag whose refusal says what it accepts.
type boolFlag struct{ p *bool }

func (f boolFlag) IsBoolFlag() bool { return true }

func (f boolFlag) String() string { return strconv.FormatBool(f.p != nil && *f.p) }

func (f boolFlag) Get() any { return *f.p }

func (f boolFlag) Set(s string) error {
	v, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("want true or false (or 1 or 0)")
	}
	*f.p = v
	return nil
}

// boolVar defines a boolean flag, false by default.
func boolVar(fs *flag.FlagSet, p *bool, name, usage string) { fs.Var(boolFlag{p: p}, name, usage) }

// Ranges shared by several flags.
const (
	day        = 24 * time.Hour
	maxTimeout = time.Hour
)

// maxShown is how much of a value a message quotes: a pasted megabyte
// must not fill the terminal.
const maxShown = 40

// shown quotes a value for a message, cut to its first maxShown bytes (on
// a rune boundary) with its length when it is longer.
func shown(v string) string {
	if len(v) <= maxShown {
		return strconv.Quote(v)
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(v[:cut]), len(v))
}
