package main

// workerDB returns the URL the workers' pools use and the environment
// that tells them how: with -pgbouncer-url, every statement goes through
// the bouncer (transaction mode, so no named prepared statements) and each
// worker LISTENs on a direct connection to -database-url.
func (o options) workerDB() (url string, env []string) {
	if o.bouncerURL == "" {
		return o.databaseURL, nil
	}
	return o.bouncerURL, []string{"TICKWORK_TRANSACTION_POOLING=true", "TICKWORK_LISTEN_URL=" + o.databaseURL}
}
