-- Dead letters: a queue's dead_letter names the queue its jobs move to
-- when they fail for good; a moved row keeps its status, its queue
-- becomes the dead-letter queue and dead_from the queue it failed in
-- (store/pg/deadletter.go), so that a redrive knows where to send its
-- next attempt. Rows are moved by primary key, and a redrive pages
-- through ListJobs: no index.
ALTER TABLE jobs ADD COLUMN dead_from text COLLATE "C"
    CONSTRAINT jobs_dead_from_check CHECK (dead_from IS NULL OR (dead_from <> queue AND status IN ('failed', 'lost')));

ALTER TABLE queues
    ADD COLUMN dead_letter text COLLATE "C" CONSTRAINT queues_dead_letter_check CHECK (dead_letter <> name),
    DROP CONSTRAINT queues_check,
    ADD CONSTRAINT queues_check CHECK (paused_at IS NOT NULL OR max_running IS NOT NULL OR rate_starts IS NOT NULL
        OR key_limit IS NOT NULL OR dead_letter IS NOT NULL);
