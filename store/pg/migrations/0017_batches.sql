-- Batches: a group of member jobs and one callback job that runs once
-- every member ended for good (store/pg/batch.go). batch names a
-- member's batch by its callback's id; callback_of, on the callback's
-- rows, the batch it is the callback of; batch_counted, true or NULL,
-- that the leader counted the member row's end in batches.
ALTER TABLE jobs
    ADD COLUMN batch uuid,
    ADD COLUMN batch_counted boolean CHECK (batch_counted),
    ADD COLUMN callback_of uuid;

-- One row per batch, by its callback's first id: the member count and
-- what the leader counted of their ends. failed_ids lists the first 100
-- members counted failed (store.MaxBatchFailedIDs).
CREATE TABLE batches (
    id         uuid PRIMARY KEY,
    members    integer NOT NULL CHECK (members > 0),
    completed  integer NOT NULL DEFAULT 0,
    failed     integer NOT NULL DEFAULT 0,
    cancelled  integer NOT NULL DEFAULT 0,
    failed_ids uuid[] NOT NULL DEFAULT '{}' CHECK (cardinality(failed_ids) <= 100),
    CHECK (completed + failed + cancelled <= members)
);

-- The leader's count reads the member rows that ended for good and are
-- not counted yet: few, whatever the history, since it marks each it
-- counts.
CREATE INDEX jobs_batch_uncounted_idx ON jobs (id)
    WHERE batch IS NOT NULL AND batch_counted IS NULL
      AND (status IN ('completed', 'cancelled') OR (status IN ('failed', 'lost') AND next_attempt_id IS NULL));
