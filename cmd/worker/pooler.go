package main

import (
	"flag"

	"github.com/tickwork/tickwork/store/pg"
)

// poolerFlags say how to reach PostgreSQL when -database-url goes through a
// pooler such as PgBouncer in transaction mode (docs/PGBOUNCER.md).
type poolerFlags struct {
	transactionPooling bool
	listenURL          string
}

func (p *poolerFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&p.transactionPooling, "transaction-pooling", false, "-database-url goes through a pooler in transaction mode (PgBouncer pool_mode = transaction): no named prepared statements, and LISTEN only on -listen-url (without it, workers poll)")
	fs.StringVar(&p.listenURL, "listen-url", "", "direct PostgreSQL URL for LISTEN, when -database-url goes through a pooler (the password is never printed)")
}

// apply sets the store options the flags stand for.
func (p *poolerFlags) apply(o *pg.Options) {
	o.TransactionPooling = p.transactionPooling
	o.ListenURL = p.listenURL
}
