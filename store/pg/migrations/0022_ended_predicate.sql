-- jobs_ended_idx's predicate was its statuses only, which the cancel
-- check (status = 'cancelled', by id) implies: with statistics taken
-- while the index was empty (autovacuum off, then a bulk cancel), the
-- planner read the whole index for each check instead of probing the
-- primary key. The predicate now also states the end time, which
-- retention's and the console's conditions on it imply (a comparison is
-- false for NULL) and the cancel check does not.
DROP INDEX jobs_ended_idx;
CREATE INDEX jobs_ended_idx ON jobs ((coalesce(completed_at, failed_at, cancelled_at)))
    WHERE status IN ('completed', 'failed', 'lost', 'cancelled', 'snoozed')
      AND coalesce(completed_at, failed_at, cancelled_at) IS NOT NULL;
