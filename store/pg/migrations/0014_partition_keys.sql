-- Per-key limits: a job may carry a partition key, and a queue's
-- key_limit bounds its running jobs of each key across every worker,
-- together with max_running (store/pg/reserve_keyed.go).
ALTER TABLE jobs ADD COLUMN partition_key text COLLATE "C"
    CHECK (octet_length(partition_key) BETWEEN 1 AND 200);

ALTER TABLE queues
    ADD COLUMN key_limit integer CHECK (key_limit > 0),
    DROP CONSTRAINT queues_check,
    ADD CONSTRAINT queues_check CHECK (paused_at IS NOT NULL OR max_running IS NOT NULL OR rate_starts IS NOT NULL
        OR key_limit IS NOT NULL);

-- A reservation of a queue with a per-key limit walks the queue's keys
-- that have available rows (a skip scan, one probe a key) and reads each
-- key's first rows in reservation order, so that a key at its limit with
-- a backlog of a million rows costs one probe, not a million rows read.
-- Rows without a key (NULL) sort after the keys and are read the same way.
CREATE INDEX jobs_key_available_idx ON jobs (queue, partition_key, priority, scheduled_at, id)
    WHERE status = 'available';
