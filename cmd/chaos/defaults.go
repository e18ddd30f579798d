package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/tickwork/tickwork/internal/localpg"
)

// restartVar asks a run outside CI to restart PostgreSQL: that fault takes
// the server down under everything else using it, so on a developer's
// machine it happens only on request.
const restartVar = "TICKWORK_CHAOS_RESTART_PG"

// defaultRestartCmd is the -restart-pg-cmd default: defaultRestartPG when
// CI is set or restartVar is true, else none.
func defaultRestartCmd(getenv func(string) string) (string, error) {
	asked := false
	if v := getenv(restartVar); v != "" {
		var err error
		if asked, err = strconv.ParseBool(v); err != nil {
			return "", fmt.Errorf("%s=%q: want 1 (restart PostgreSQL during the run) or 0", restartVar, v)
		}
	}
	if asked || getenv("CI") != "" {
		return defaultRestartPG, nil
	}
	return "", nil
}

// skipError means there is no database and the run was told to skip
// rather than fail (-skip-without-database outside CI).
type skipError struct{ err error }

func (e skipError) Error() string { return "chaos skipped: " + e.err.Error() }

// findDatabase fills in o.databaseURL when no flag gave it: DATABASE_URL,
// else the local server (localpg). Without either it fails, or with
// o.skipWithoutDB outside CI returns a skipError.
func findDatabase(o *options, env localpg.Finder) error {
	if o.databaseURL != "" || o.failover { // -failover makes its own
		return nil
	}
	url, err := env.Find(context.Background())
	if err == nil {
		o.databaseURL = url
		return nil
	}
	if o.skipWithoutDB && env.Getenv("CI") == "" {
		return skipError{err}
	}
	return fmt.Errorf("no database: %w; set DATABASE_URL or pass -database-url", err)
}
