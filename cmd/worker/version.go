package main

import (
	"fmt"
	"runtime/debug"
	"text/tabwriter"
)

// versionCmd prints what the Go toolchain recorded in the binary: the
// module version (a tag for `go install ...@v1.2.3`, "(devel)" for a build
// from a checkout) and, for a checkout, the commit it was built from.
func (c *cli) versionCmd(args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %s: version takes none", shown(args[0]))
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(c.stdout, "worker: no build information (built without module support)")
		return nil
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "module\t%s %s\n", info.Main.Path, info.Main.Version)
	fmt.Fprintf(tw, "go\t%s\n", info.GoVersion)
	vcs := map[string]string{}
	for _, s := range info.Settings {
		vcs[s.Key] = s.Value
	}
	if rev := vcs["vcs.revision"]; rev != "" {
		if vcs["vcs.modified"] == "true" {
			rev += " (with uncommitted changes)"
		}
		fmt.Fprintf(tw, "commit\t%s\n", rev)
	}
	if t := vcs["vcs.time"]; t != "" {
		fmt.Fprintf(tw, "commit time\t%s\n", t)
	}
	return tw.Flush()
}
