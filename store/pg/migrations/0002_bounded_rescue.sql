-- RescueLostJobs looks up the running jobs of each shut-down worker once,
-- and records here that it did: a worker cannot start a job once shut down
-- (reserving share-locks its live row), so there is nothing to find later.
-- Looking them up again on every leader pass, as 0001's statement did, read
-- the running-jobs index's entry of every job a shut-down worker ever ran,
-- until a vacuum. Rows shut down before this migration have rescued_at NULL
-- and are looked at once more.
ALTER TABLE workers ADD COLUMN rescued_at timestamptz;

CREATE INDEX workers_unrescued_idx ON workers (id) WHERE shutdown_at IS NOT NULL AND rescued_at IS NULL;
