-- Priorities (issue 11) and the operator's queue controls (issue 12).
--
-- A job's priority: Reserve takes the smallest first. 0, the default, is
-- what every row written before this migration has, so they keep their
-- order.
ALTER TABLE jobs ADD COLUMN priority smallint NOT NULL DEFAULT 0 CHECK (priority BETWEEN 0 AND 9);

-- Reserve walks a queue's available rows in reservation order (priority,
-- scheduled_at, id) and stops after limit of them, whatever the backlog.
DROP INDEX jobs_available_idx;
CREATE INDEX jobs_available_idx ON jobs (queue, priority, scheduled_at, id) WHERE status = 'available';

-- A queue's running rows, counted by Reserve only for a queue that has a
-- limit: partial, so it holds the running rows alone. queue > '' holds for
-- every row (a queue name is never empty) and is there so that only a
-- statement that says it can use this index: the statements that look up
-- a worker's running rows would otherwise walk all of it, filtering on
-- started_by, rather than jobs_running_idx.
CREATE INDEX jobs_running_queue_idx ON jobs (queue) WHERE status = 'running' AND queue > '';

-- One row per queue that is paused or limited, none for the others: Reserve
-- reads this table by primary key, and a queue without controls costs it
-- one index probe that finds nothing.
CREATE TABLE queues (
    name        text COLLATE "C" PRIMARY KEY,
    paused_at   timestamptz,
    max_running integer CHECK (max_running > 0),
    CHECK (paused_at IS NOT NULL OR max_running IS NOT NULL)
);
