-- jobs_ended_idx, which retention reads in (end time, id) order, changes
-- twice, so that no plan reads it whole when its statistics call it
-- empty (taken before the rows ended, with autovacuum off):
--   * its predicate also states the end time, which retention's and the
--     console's conditions on it imply (a comparison is false for NULL)
--     and the cancel check (status = 'cancelled', by id) does not: that
--     check read the whole index on every job pass after a bulk cancel
--     instead of probing the primary key;
--   * id is in its key, so retention's order needs no sort: it sorted
--     the whole index before its limit, and so read all the history on
--     each pass.
DROP INDEX jobs_ended_idx;
CREATE INDEX jobs_ended_idx ON jobs ((coalesce(completed_at, failed_at, cancelled_at)), id)
    WHERE status IN ('completed', 'failed', 'lost', 'cancelled', 'snoozed')
      AND coalesce(completed_at, failed_at, cancelled_at) IS NOT NULL;
