-- Sequences: the jobs with one sequence key run one at a time, in enqueue
-- order (sequence_pos), across every queue and worker
-- (store/pg/reserve_sequence.go). A job that failed for good holds its
-- sequence up unless it continues on failure or an operator skipped it.
ALTER TABLE jobs
    ADD COLUMN sequence_key text COLLATE "C" CHECK (octet_length(sequence_key) BETWEEN 1 AND 200),
    ADD COLUMN sequence_pos bigint,
    ADD COLUMN sequence_continues boolean NOT NULL DEFAULT false,
    ADD COLUMN sequence_skipped boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT jobs_sequence_check CHECK ((sequence_key IS NULL) = (sequence_pos IS NULL)
        AND (sequence_key IS NOT NULL OR NOT sequence_continues AND NOT sequence_skipped)
        AND (sequence_key IS NULL OR partition_key IS NULL));

-- The reservation of jobs without a sequence no longer reads the rows of
-- sequences, so that a sequence's backlog of a million rows waiting
-- behind its head costs it nothing; those are read per key below.
DROP INDEX jobs_available_idx;
CREATE INDEX jobs_available_idx ON jobs (queue, priority, scheduled_at, id)
    WHERE status = 'available' AND sequence_key IS NULL;

-- Each key of a queue with available rows, and its first such row, found
-- with one probe per key (a skip scan).
CREATE INDEX jobs_sequence_available_idx ON jobs (queue, sequence_key, sequence_pos)
    WHERE status = 'available' AND sequence_key IS NOT NULL;

-- The rows that hold their sequence: whether one comes before a key's
-- first available row is one probe.
CREATE INDEX jobs_sequence_open_idx ON jobs (sequence_key, sequence_pos)
    WHERE sequence_key IS NOT NULL AND next_attempt_id IS NULL
      AND (status IN ('scheduled', 'available', 'running')
           OR status IN ('failed', 'lost') AND NOT sequence_continues AND NOT sequence_skipped);

-- Whether a key has a running row (after an operator retried a job behind
-- it), and the last place of a key, for an insert's numbering.
CREATE INDEX jobs_sequence_running_idx ON jobs (sequence_key) WHERE status = 'running' AND sequence_key IS NOT NULL;
CREATE INDEX jobs_sequence_pos_idx ON jobs (sequence_key, sequence_pos) WHERE sequence_key IS NOT NULL;
