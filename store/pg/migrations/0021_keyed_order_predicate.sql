-- jobs_keyed_available_idx and jobs_key_available_idx held the same rows
-- under the same predicate, so the planner could read a cold key's first
-- rows from the index in reservation order, filtered by key: behind a hot
-- key's backlog of a million rows that read the whole backlog for each
-- cold key (a generic plan with fresh statistics). The index in
-- reservation order now has a predicate of its own, partition_key > ''
-- (true of every key: a key is 1 to 200 bytes, compared COLLATE "C"),
-- which only the reservation of queues without a per-key limit states;
-- a lookup by key implies only jobs_key_available_idx's.
DROP INDEX jobs_keyed_available_idx;
CREATE INDEX jobs_keyed_available_idx ON jobs (queue, priority, scheduled_at, id)
    WHERE status = 'available' AND partition_key > '';
