-- The vacuum duty's bookkeeping (worker run -vacuum-dead-rows): when a
-- leader last decided to VACUUM jobs, in store time, and on how many dead
-- rows. It is a table, not a belief of the leader, so that a new leader
-- keeps the interval its predecessor began: at most one vacuum per
-- interval across leaders. At most one row, for the jobs table.
CREATE TABLE vacuums (
    relation   text PRIMARY KEY CHECK (relation = 'jobs'),
    started_at timestamptz NOT NULL,
    dead_rows  bigint NOT NULL CHECK (dead_rows >= 0)
);
