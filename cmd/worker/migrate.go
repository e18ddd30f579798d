package main

import (
	"context"
	"fmt"
	"io"
)

const migrateSynopsis = `worker migrate [-print] [flags]

Creates the queue tables in -schema, or upgrades them to this binary's
version, and prints each migration it applied and the version it left.
Running it from several processes at once is safe: they take turns under an
advisory lock and all succeed. A schema migrated by a newer release is
refused and left as it is. With -print it changes nothing and prints the
SQL it would run instead: a script psql can run, one transaction per
migration the schema lacks.`

func (c *cli) migrateCmd(ctx context.Context, args []string) error {
	fs, db := c.dbFlagSet("worker migrate", migrateSynopsis)
	printOnly := fs.Bool("print", false, "print the SQL of the migrations the schema lacks, without applying them")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	st, err := c.openStore(ctx, db, c.defaultLogger())
	if err != nil {
		return err
	}
	defer st.Close()
	if *printOnly {
		script, pending, err := st.MigrationScript(ctx)
		if err != nil {
			return err
		}
		if len(pending) == 0 {
			fmt.Fprintf(c.stderr, "schema %q is up to date: nothing to print\n", db.schema)
			return nil
		}
		_, err = io.WriteString(c.stdout, script)
		return err
	}
	res, err := st.ApplyMigrations(ctx)
	if err != nil {
		return fmt.Errorf("migrate schema %q: %w", db.schema, err)
	}
	for _, m := range res.Applied {
		fmt.Fprintf(c.stdout, "schema %q: applied migration %s\n", db.schema, m)
	}
	if len(res.Applied) == 0 {
		fmt.Fprintf(c.stdout, "schema %q is up to date at version %d\n", db.schema, res.Version)
		return nil
	}
	fmt.Fprintf(c.stdout, "schema %q is now at version %d\n", db.schema, res.Version)
	return nil
}
