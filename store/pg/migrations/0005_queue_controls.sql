-- Priorities and the operator's queue controls.
--
-- A job's priority: Reserve takes the smallest first. 0, the default, is
-- what every row written before this migration has, so they keep their
-- order.
ALTER TABLE jobs ADD COLUMN priority smallint NOT NULL DEFAULT 0 CHECK (priority BETWEEN 0 AND 9);

-- Reserve walks a queue's available rows in reservation order (priority,
-- scheduled_at, id) and stops after limit of them, whatever the backlog.
DROP INDEX jobs_available_idx;
CREATE INDEX jobs_available_idx ON jobs (queue, priority, scheduled_at, id) WHERE status = 'available';

-- Reserve counts a limited queue's running rows by walking
-- jobs_running_idx, which holds the running rows of every queue (as many as
-- the workers run at once, not the history). An index of running rows by
-- queue would cost every reservation one more index entry, and cut the
-- throughput of queues without a limit by a fifth.

-- One row per queue that is paused or limited, none for the others: Reserve
-- reads this table by primary key, and a queue without controls costs it
-- one index probe that finds nothing.
CREATE TABLE queues (
    name        text COLLATE "C" PRIMARY KEY,
    paused_at   timestamptz,
    max_running integer CHECK (max_running > 0),
    CHECK (paused_at IS NOT NULL OR max_running IS NOT NULL)
);
