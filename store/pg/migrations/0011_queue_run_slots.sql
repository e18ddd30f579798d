-- A limit without serialization: a limited queue's reservations
-- took its advisory lock exclusive to count its running rows one after
-- another, so workers waited on each other's commits (a third to a half of
-- the unlimited throughput). Now the queue has max_running run slots: a
-- slot holds the jobs it admitted and is free once none of them is running,
-- which the reservation checks against jobs by primary key (completions,
-- failures, rescues and cancels do not touch the slots). A reservation
-- claims free slots FOR UPDATE SKIP LOCKED in slot order from a slot of
-- its own (so that concurrent reservations seldom meet), and puts each job
-- it reserves in one. A slot holds one job a reservation put there, so at
-- most max_running run at once.
--
-- A claim changes no indexed column and the table leaves half of each
-- page free, so claims are HOT updates: an index ordered by claim time put
-- every dead version at the head of the next claim's scan, and with four
-- workers at 100 jobs a reservation made the limited queue four times
-- slower than the unlimited one.
--
-- When a limit is set, the queue's running rows fill the slots in id
-- order, and those beyond the limit go into every slot: a limit below what
-- runs admits nothing until they have finished (store.RunSlotJobs).
CREATE TABLE queue_run_slots (
    queue   text COLLATE "C" NOT NULL REFERENCES queues (name) ON DELETE CASCADE,
    slot    integer NOT NULL,
    job_ids uuid[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (queue, slot)
) WITH (fillfactor = 50);

-- The queues limited before this migration, with the rows running now.
INSERT INTO queue_run_slots (queue, slot, job_ids)
SELECT q.name, g.slot, coalesce((
    SELECT array_agg(r.id ORDER BY r.id) FROM (
        SELECT j.id, row_number() OVER (ORDER BY j.id) AS n FROM jobs AS j
        WHERE j.status = 'running' AND j.queue = q.name) AS r
    WHERE r.n = g.slot OR r.n > q.max_running), '{}')
FROM queues AS q CROSS JOIN LATERAL generate_series(1, q.max_running) AS g(slot)
WHERE q.max_running IS NOT NULL;
