-- Retention deletes in (end time, id) order. jobs_ended_idx held the end
-- time only, so the planner sorted to break ties: an incremental sort of
-- a few entries with fresh statistics, but a sort of the whole index
-- when its statistics called it empty (taken before the rows ended,
-- autovacuum off), and each retention pass then read all the history.
-- With id in the key the index gives the order itself.
DROP INDEX jobs_ended_idx;
CREATE INDEX jobs_ended_idx ON jobs ((coalesce(completed_at, failed_at, cancelled_at)), id)
    WHERE status IN ('completed', 'failed', 'lost', 'cancelled', 'snoozed')
      AND coalesce(completed_at, failed_at, cancelled_at) IS NOT NULL;
