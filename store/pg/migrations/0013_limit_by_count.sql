-- A limit counted, without run slots: claiming and rewriting a
-- queue's run slots cost a limited queue a sixth of its throughput. A
-- reservation now counts the queue's running rows, holding the queue's
-- limit lock (an advisory lock of its own) so that those that add running
-- jobs count one after another; a job pass that only starts as many jobs
-- of the queue as it has just completed, in the same transaction, leaves
-- the count as it was and takes no lock (store/pg/limit.go).
--
-- That holds only while no more than the limit run. A limit set below what
-- runs marks the queue overrun: no pass reuses the places of its jobs until
-- a reservation holding the limit lock has counted at most the limit
-- running again, which clears the mark.
ALTER TABLE queues ADD COLUMN limit_overrun boolean NOT NULL DEFAULT false;

UPDATE queues AS q SET limit_overrun = true
WHERE q.max_running IS NOT NULL
  AND q.max_running < (SELECT count(*) FROM jobs AS j WHERE j.status = 'running' AND j.queue = q.name);

DROP TABLE queue_run_slots;
