package main

import (
	"context"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// migrate -print prints every migration a new schema lacks and creates
// nothing; after migrating, it prints nothing.
func TestMigratePrintChangesNothing(t *testing.T) {
	schema := pgtest.Schema(t)
	db := dbArgs(t, schema)
	code, stdout, stderr := runCLI(t, nil, cmdArgs([]string{"migrate", "-print"}, db)...)
	if code != exitOK || !strings.Contains(stdout, "-- migration 0001_init\nBEGIN;") || strings.Count(stdout, "COMMIT;") != pg.SchemaVersion() {
		t.Fatalf("migrate -print: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	st, err := pg.Open(context.Background(), pgtest.URL(t), pg.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.CheckMigrated(context.Background()); err == nil {
		t.Fatal("migrate -print migrated the schema")
	}
	if code, _, stderr := runCLI(t, nil, cmdArgs([]string{"migrate"}, db)...); code != exitOK {
		t.Fatalf("migrate: exit %d, stderr:\n%s", code, stderr)
	}
	code, stdout, stderr = runCLI(t, nil, cmdArgs([]string{"migrate", "-print"}, db)...)
	if code != exitOK || stdout != "" || !strings.Contains(stderr, "up to date: nothing to print") {
		t.Errorf("migrate -print of an up-to-date schema: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
