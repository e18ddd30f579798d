-- release_children(awaited, completed, at, channel): the release of the
-- jobs waiting for rows a completion just completed, moved out of the
-- completion statement into a function the statement calls only when one
-- of its rows is awaited. A generic plan's executor starts every node of
-- a statement whether it runs or not, and the release's delete and
-- update opened job_waits, jobs and all of jobs' indexes in every
-- completion; nearly every completion releases nothing (on the benchmark
-- machine, a tenth of what the server spent per job, completing five
-- jobs a statement).
--
--   awaited_ids    the completed ids marked awaited: their job_waits
--                  rows go
--   completed_ids  every id the statement completed: a child drops each
--                  of them from its parents (rules.DropParents), and
--                  leaves waiting when none is left (for scheduled when
--                  it is due later than now_)
--   now_           the completion's time
--   channel        the available channel (pg.Store's chAvailable),
--                  notified once for each queue, in order, of a job
--                  released available
--
-- It returns how many jobs it released. The child's update computes both
-- its parents and its status from the row it locks, so two transactions
-- completing two parents of one child each see the other's drop. The
-- migration runs with search_path set to the store's schema, which the
-- function keeps (FROM CURRENT) to find its tables.
CREATE FUNCTION release_children(awaited_ids uuid[], completed_ids uuid[], now_ timestamptz, channel text)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path FROM CURRENT
AS $$
DECLARE
    released_jobs bigint;
    available_queues text[];
BEGIN
    WITH freed AS (
        DELETE FROM job_waits AS w WHERE w.parent = ANY (awaited_ids) RETURNING w.child),
    released AS (
        UPDATE jobs AS c SET
            parents = nullif(ARRAY(SELECT u.p FROM unnest(c.parents) WITH ORDINALITY AS u(p, n)
                WHERE u.p <> ALL (completed_ids) ORDER BY u.n), '{}'),
            status = CASE WHEN NOT c.parents <@ completed_ids THEN 'waiting'
                WHEN c.scheduled_at > now_ THEN 'scheduled' ELSE 'available' END
        WHERE c.id = ANY (ARRAY(SELECT f.child FROM freed AS f)) AND c.status = 'waiting'
        RETURNING c.queue, c.status)
    SELECT count(*) FILTER (WHERE r.status <> 'waiting'),
        array_agg(DISTINCT r.queue ORDER BY r.queue) FILTER (WHERE r.status = 'available')
    INTO released_jobs, available_queues
    FROM released AS r;
    PERFORM pg_notify(channel, q.queue) FROM unnest(available_queues) WITH ORDINALITY AS q(queue, n) ORDER BY q.n;
    RETURN released_jobs;
END
$$;
