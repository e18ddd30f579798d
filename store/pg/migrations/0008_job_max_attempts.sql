-- A job's own bound on its attempts: set at enqueue
-- (worker.WithMaxAttempts) and kept by every retry and snooze of the job,
-- so that whichever worker decides its retry, a leader rescuing it without
-- a handler for its queue included, applies the same bound. NULL: none,
-- the handler's or the worker's bound applies, as for every row written
-- before this migration. Not an index: only the row at hand is read.
ALTER TABLE jobs ADD COLUMN max_attempts integer CHECK (max_attempts >= 1);
