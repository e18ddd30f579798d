-- Autovacuum settings for a queue table. Every job leaves dead versions
-- behind (available -> running -> completed; status is in the partial
-- indexes' predicates, so none of these updates is HOT), and each one leaves
-- a dead entry at the head of jobs_available_idx (and jobs_running_idx)
-- that every reservation reads past until a vacuum removes it: measured
-- with 500,000 finished rows, 2,470 index pages and 20 ms per reservation
-- before VACUUM, 6 buffers and 0.18 ms after.
--
-- The server's defaults vacuum a table once its dead rows reach 20% of its
-- rows (autovacuum_vacuum_scale_factor 0.2): with a month of finished jobs
-- kept, that is hundreds of thousands of jobs between vacuums, so the cost
-- of a job grew with the history. A fixed threshold instead vacuums jobs
-- every few thousand jobs (about two dead versions per job), however much
-- history the table holds; autovacuum_naptime (a server setting, 1 min by
-- default) still bounds how often that can happen.
--
-- No cost delay: a throttled vacuum of a large table takes minutes while
-- dead entries keep piling up at the head of the indexes it has not reached
-- yet. Vacuuming a queue's own table is the work that keeps it fast.
--
-- These settings do nothing while the server's autovacuum is off.
ALTER TABLE jobs SET (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 5000,
    autovacuum_vacuum_cost_delay = 0
);
