-- The tables of docs/DESIGN.md's "Tables". Applied with search_path set to the store's
-- schema, so names are unqualified here.

CREATE TABLE workers (
    id            uuid PRIMARY KEY,
    registered_at timestamptz NOT NULL,
    last_seen_at  timestamptz NOT NULL,
    shutdown_at   timestamptz
);

-- The leader lease: at most one row. UNLOGGED because it is only a lease:
-- after a crash it is empty and workers elect a leader again.
CREATE UNLOGGED TABLE leader (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    worker_id  uuid NOT NULL,
    elected_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);

-- payload and metadata are json, not jsonb, so their text comes back byte
-- for byte. Names are COLLATE "C" so that ORDER BY matches Go's byte order.
--
-- started_by names a worker but has no foreign key: the check it would run
-- for every reserved row costs more than the rest of the row's update.
-- Reserve locks the live worker's row itself, and DeleteOldWorkers sets
-- started_by to NULL as ON DELETE SET NULL would.
--
-- fillfactor leaves room on each page for the versions that reserving and
-- finishing a job write, so they stay on the row's own page.
CREATE TABLE jobs (
    id              uuid PRIMARY KEY,
    queue           text COLLATE "C" NOT NULL,
    payload         json NOT NULL,
    metadata        json NOT NULL,
    status          text COLLATE "C" NOT NULL CHECK (status IN
                        ('scheduled', 'available', 'running', 'completed', 'failed', 'lost', 'cancelled')),
    attempt         integer NOT NULL CHECK (attempt >= 0),
    created_at      timestamptz NOT NULL,
    scheduled_at    timestamptz NOT NULL,
    started_at      timestamptz,
    started_by      uuid,
    completed_at    timestamptz,
    failed_at       timestamptz,
    failed_reason   text,
    cancelled_at    timestamptz,
    next_attempt_id uuid REFERENCES jobs (id) ON DELETE SET NULL,
    schedule_name   text COLLATE "C"
) WITH (fillfactor = 50);

-- Reserve: the available rows of a queue in id order. Partial, so it stays
-- small and reserving or finishing a job adds nothing to it.
CREATE INDEX jobs_available_idx ON jobs (queue, id) WHERE status = 'available';
-- A worker's running jobs, and the rescue of those whose worker died.
CREATE INDEX jobs_running_idx ON jobs (started_by) WHERE status = 'running';
-- Promotion of scheduled rows whose time has come.
CREATE INDEX jobs_promote_idx ON jobs (scheduled_at) WHERE status = 'scheduled';
-- Retention: terminal rows by the time they ended.
CREATE INDEX jobs_ended_idx ON jobs ((coalesce(completed_at, failed_at, cancelled_at)))
    WHERE status IN ('completed', 'failed', 'lost', 'cancelled');
-- The foreign key's ON DELETE SET NULL looks rows up by the referencing
-- column. Partial, so the many rows without a value cost nothing at insert.
-- started_by has no such index: every job would pay for it twice (reserve
-- and finish) to speed up the rare deletion of an old worker.
CREATE INDEX jobs_next_attempt_idx ON jobs (next_attempt_id) WHERE next_attempt_id IS NOT NULL;

CREATE TABLE schedules (
    name                  text COLLATE "C" PRIMARY KEY,
    last_scheduled_at     timestamptz,
    last_scheduled_job_id uuid REFERENCES jobs (id) ON DELETE SET NULL
);

CREATE INDEX schedules_last_job_idx ON schedules (last_scheduled_job_id)
    WHERE last_scheduled_job_id IS NOT NULL;
