-- Queues without history: a queue whose history is 'none' has each
-- successful completion delete its job's row in the completion's own
-- statement, instead of updating it to completed for retention to delete
-- later, when nothing else keeps the row (store/pg/history.go). 'keep',
-- the default, is what every queue had before: existing rows keep it.
ALTER TABLE queues
    ADD COLUMN history text NOT NULL DEFAULT 'keep' CONSTRAINT queues_history_check CHECK (history IN ('keep', 'none')),
    DROP CONSTRAINT queues_check,
    ADD CONSTRAINT queues_check CHECK (paused_at IS NOT NULL OR max_running IS NOT NULL OR rate_starts IS NOT NULL
        OR key_limit IS NOT NULL OR dead_letter IS NOT NULL OR history = 'none');

-- The completion's one probe for every queue: is any queue without
-- history? With none, this index is empty and the deleting part of the
-- completion reads no job row.
CREATE INDEX queues_no_history_idx ON queues (name) WHERE history = 'none';
