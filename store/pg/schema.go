package pg

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/store"
)

// MaxSchemaBytes is the longest schema name accepted: PostgreSQL truncates
// identifiers to 63 bytes, and the longest channel name,
// <schema>_leader_stepdown, must fit.
const MaxSchemaBytes = 63 - len("_leader_stepdown")

// ValidateSchema reports whether name can name the store's schema: 1 to
// MaxSchemaBytes bytes of lowercase ASCII letters, digits and underscores,
// not starting with a digit or "pg_" (PostgreSQL reserves those). Lowercase
// only, so the name means the same quoted or not in psql.
func ValidateSchema(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("store/pg: schema name %q %s: %w", name, why, store.ErrInvalid)
	}
	switch {
	case name == "" || len(name) > MaxSchemaBytes:
		return bad(fmt.Sprintf("must be 1 to %d bytes", MaxSchemaBytes))
	case name[0] >= '0' && name[0] <= '9':
		return bad("must not start with a digit")
	case strings.HasPrefix(name, "pg_"):
		return bad(`must not start with "pg_"`)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return bad("may hold only lowercase letters, digits and underscores")
		}
	}
	return nil
}

func quoteIdent(name string) string { return pgx.Identifier{name}.Sanitize() }

// lockKey derives an advisory lock key from purpose and schema, so that
// deployments in different schemas of one database never block each other.
func lockKey(purpose, schema string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte("tickwork " + purpose + " " + schema))
	return int64(h.Sum64())
}

// schemaToken stands for the quoted schema in the SQL text of the queries,
// availableToken for the available channel's name as a string literal.
const (
	schemaToken    = "{schema}"
	availableToken = "{available}"
)

// sql returns the query text with the schema filled in. Every statement
// names its tables with the schema rather than relying on search_path, so
// that InPgxTx works on a caller's connection. The result is cached: the
// same text then hits pgx's per-connection prepared statement cache.
func (s *Store) sql(text string) string {
	if q, ok := s.queries.Load(text); ok {
		return q.(string)
	}
	q := strings.ReplaceAll(text, schemaToken, s.ident)
	q = strings.ReplaceAll(q, availableToken, "'"+strings.ReplaceAll(s.chAvailable, "'", "''")+"'")
	s.queries.Store(text, q)
	return q
}
