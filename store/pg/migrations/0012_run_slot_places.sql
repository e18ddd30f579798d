-- Run slots with places: with one slot per unit of the limit, a
-- reservation of a hundred jobs locked and rewrote a hundred slots, which
-- cost a limited queue about a third of its throughput. A slot now has
-- places, and a limit above 64 (store.MaxRunSlots) shares them out among
-- 64 slots, the first ones a place larger when they do not share evenly
-- (store.RunSlotPlaces): a reservation claims the few slots its jobs need
-- and writes each once, keeping in it the slot's jobs still running beside
-- the new ones. A slot has a free place for each of its places beyond its
-- jobs still running; up to 64 the slots have one place each, as before.
ALTER TABLE queue_run_slots ADD COLUMN places integer NOT NULL DEFAULT 1 CHECK (places > 0);

-- The queues limited before this migration get the slots of their limit,
-- filled with the rows running now as SetQueueLimit fills them
-- (store.RunSlotJobs): in id order, each slot as many as its places, and
-- those beyond the limit in every slot.
DELETE FROM queue_run_slots;
INSERT INTO queue_run_slots (queue, slot, places, job_ids)
SELECT q.name, g.slot, p.places, coalesce((
    SELECT array_agg(r.id ORDER BY r.id) FROM (
        SELECT j.id, row_number() OVER (ORDER BY j.id) AS n FROM jobs AS j
        WHERE j.status = 'running' AND j.queue = q.name) AS r
    WHERE (r.n > p.before AND r.n <= p.before + p.places) OR r.n > q.max_running), '{}')
FROM queues AS q
CROSS JOIN LATERAL (SELECT least(q.max_running, 64) AS slots) AS n
CROSS JOIN LATERAL generate_series(1, n.slots) AS g(slot)
CROSS JOIN LATERAL (SELECT q.max_running / n.slots + (g.slot <= q.max_running % n.slots)::integer AS places,
    (g.slot - 1) * (q.max_running / n.slots) + least(g.slot - 1, q.max_running % n.slots) AS before) AS p
WHERE q.max_running IS NOT NULL;
