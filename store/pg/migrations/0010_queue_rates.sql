-- Rate limits per queue: at most rate_starts starts of
-- the queue's jobs in any window of rate_period of store time.
ALTER TABLE queues
    ADD COLUMN rate_starts integer CHECK (rate_starts > 0),
    ADD COLUMN rate_period interval CHECK (rate_period > '0'),
    ADD CONSTRAINT queues_rate_check CHECK ((rate_starts IS NULL) = (rate_period IS NULL)),
    DROP CONSTRAINT queues_check,
    ADD CONSTRAINT queues_check CHECK (paused_at IS NOT NULL OR max_running IS NOT NULL OR rate_starts IS NOT NULL);

-- One row per start a rate-limited queue admits per period: last_start is
-- the store time of the last start the slot admitted ('-infinity': none),
-- and the slot admits the next once rate_period has passed since. Each slot
-- holds at most one start in any window of rate_period, so no window holds
-- more than rate_starts. A reservation claims free slots FOR UPDATE SKIP
-- LOCKED through queue_rate_slots_free_idx (the oldest first, reading only
-- free ones), so reservations never wait on each other, and stamps as many
-- as it starts jobs.
CREATE TABLE queue_rate_slots (
    queue      text COLLATE "C" NOT NULL REFERENCES queues (name) ON DELETE CASCADE,
    slot       integer NOT NULL,
    last_start timestamptz NOT NULL DEFAULT '-infinity',
    PRIMARY KEY (queue, slot)
);
CREATE INDEX queue_rate_slots_free_idx ON queue_rate_slots (queue, last_start, slot);
