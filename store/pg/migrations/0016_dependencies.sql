-- Dependencies: a job may wait, in status 'waiting', for parent jobs to
-- complete (store/pg/dependencies.go). parents holds the parents a
-- waiting row still waits for (each job's current attempt), NULL once it
-- no longer waits; run_anyway is true or NULL. job_waits holds a row
-- (parent, child) for each of them, so that a parent's end finds its
-- children through the primary key.
ALTER TABLE jobs
    ADD COLUMN parents uuid[] CHECK (cardinality(parents) BETWEEN 1 AND 100),
    ADD COLUMN run_anyway boolean CHECK (run_anyway),
    -- awaited: a row has waited for this one since the leader last settled
    -- it; true or NULL. Set with each job_waits row, cleared only by the
    -- leader, so that it never misses a parent that ended.
    ADD COLUMN awaited boolean CHECK (awaited);

ALTER TABLE jobs DROP CONSTRAINT jobs_status_check, ADD CONSTRAINT jobs_status_check CHECK (status IN
    ('scheduled', 'available', 'running', 'completed', 'failed', 'lost', 'cancelled', 'snoozed', 'waiting'));

CREATE TABLE job_waits (
    parent uuid NOT NULL,
    child  uuid NOT NULL,
    PRIMARY KEY (parent, child)
);

-- The leader's settling reads the ended rows still marked awaited: few,
-- whatever the history, since it clears the mark of each it settles.
CREATE INDEX jobs_awaited_ended_idx ON jobs (id)
    WHERE awaited AND status IN ('completed', 'failed', 'lost', 'cancelled', 'snoozed');

-- A job that stops waiting (released or cancelled) drops its own rows.
CREATE INDEX job_waits_child_idx ON job_waits (child);
