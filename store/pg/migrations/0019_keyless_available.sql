-- A job without a partition key had two entries while available: one in
-- jobs_available_idx and one, under a NULL key, in jobs_key_available_idx,
-- where the reservation of a queue with a per-key limit found its rows
-- without a key. Each index now holds one kind of row: jobs_available_idx
-- the rows without a partition key or a sequence, jobs_key_available_idx
-- the rows with a key, by key, and jobs_keyed_available_idx the same rows
-- in reservation order, for the queues without a per-key limit. A job
-- without a key costs one entry; a job with one still costs two.
DROP INDEX jobs_available_idx;
CREATE INDEX jobs_available_idx ON jobs (queue, priority, scheduled_at, id)
    WHERE status = 'available' AND partition_key IS NULL AND sequence_key IS NULL;

DROP INDEX jobs_key_available_idx;
CREATE INDEX jobs_key_available_idx ON jobs (queue, partition_key, priority, scheduled_at, id)
    WHERE status = 'available' AND partition_key IS NOT NULL;

CREATE INDEX jobs_keyed_available_idx ON jobs (queue, priority, scheduled_at, id)
    WHERE status = 'available' AND partition_key IS NOT NULL;
