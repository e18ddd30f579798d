package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/sim"
	"github.com/tickwork/tickwork/sim/picture"
)

// pictureRecorder keeps what the picture of a run needs: its history and
// its full trace.
type pictureRecorder struct {
	events []props.Event
	trace  bytes.Buffer
}

// attach makes opt record into p, still passing the trace to opt.Trace.
func (p *pictureRecorder) attach(opt *sim.Options) {
	opt.Record = func(e props.Event) { p.events = append(p.events, e) }
	if opt.Trace != nil {
		opt.Trace = io.MultiWriter(opt.Trace, &p.trace)
	} else {
		opt.Trace = &p.trace
	}
}

// write renders the picture of r to the file path.
func (p *pictureRecorder) write(path string, cfg config, sc sim.Scenario, r *sim.Result) error {
	title := fmt.Sprintf("seed %d", sc.Seed)
	if cfg.mutant != "" {
		title += ", planted bug " + cfg.mutant
	}
	in := picture.Input{
		Title: title, Start: sim.Epoch, Events: p.events, Names: r.Names,
		Trace: strings.Split(strings.TrimRight(p.trace.String(), "\n"), "\n"),
	}
	if r.Violation != nil {
		in.Violation, in.Report, in.Tail = r.Violation, r.Report, r.Tail
		if cfg.scenario == "" {
			in.Replay = cfg.replayCommand(sc.Seed)
		}
	}
	var page bytes.Buffer
	if err := picture.Write(&page, in); err != nil {
		return err
	}
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		return fmt.Errorf("-html: %w", err)
	}
	return nil
}
