package main

import (
	"context"
	"fmt"
)

const migrateSynopsis = `worker migrate [flags]

Creates the queue tables in -schema, or upgrades them to this binary's
version. Running it from several processes at once is safe: they take turns
under an advisory lock and all succeed.`

func (c *cli) migrateCmd(ctx context.Context, args []string) error {
	fs, db := c.dbFlagSet("worker migrate", migrateSynopsis)
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	st, err := c.openStore(ctx, db, c.defaultLogger())
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate schema %q: %w", db.schema, err)
	}
	fmt.Fprintf(c.stdout, "schema %q is up to date\n", db.schema)
	return nil
}
