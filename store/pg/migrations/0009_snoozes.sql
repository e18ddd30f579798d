-- Snoozes. A handler that returns worker.Snooze(d)
-- ends its row's run as 'snoozed' (completed_at is when) and a new row
-- takes its place d later, with the same attempt number and one more
-- snooze: snoozes counts those of the job before the row, and a worker
-- fails the job once it reaches the configured cap. Every row written
-- before this migration has none.
ALTER TABLE jobs ADD COLUMN snoozes integer NOT NULL DEFAULT 0 CHECK (snoozes >= 0);

ALTER TABLE jobs DROP CONSTRAINT jobs_status_check, ADD CONSTRAINT jobs_status_check CHECK (status IN
    ('scheduled', 'available', 'running', 'completed', 'failed', 'lost', 'cancelled', 'snoozed'));

-- A snoozed row is terminal: retention deletes it like the others.
DROP INDEX jobs_ended_idx;
CREATE INDEX jobs_ended_idx ON jobs ((coalesce(completed_at, failed_at, cancelled_at)))
    WHERE status IN ('completed', 'failed', 'lost', 'cancelled', 'snoozed');

-- 0003's predicate gave every status it did not name the bit of
-- 'cancelled': a snoozed row whose key covers cancelled would hold it, and
-- its next row could not take it. Each status has its own bit now
-- (store.StatusesOf), and 'snoozed' is never covered.
DROP INDEX jobs_unique_idx;
CREATE UNIQUE INDEX jobs_unique_idx ON jobs (unique_key)
    WHERE unique_key IS NOT NULL AND (unique_states & CASE status
        WHEN 'scheduled' THEN 1 WHEN 'available' THEN 2 WHEN 'running' THEN 4 WHEN 'completed' THEN 8
        WHEN 'failed' THEN 16 WHEN 'lost' THEN 32 WHEN 'cancelled' THEN 64 ELSE 128 END) <> 0;
