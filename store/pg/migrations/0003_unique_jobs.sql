-- Unique jobs. unique_key is the stored key (the given
-- key, the covered statuses and the period's window: store.StoredUniqueKey);
-- unique_states the covered statuses, one bit each in the order of
-- store.StatusesOf. A row holds its key while its status is covered, and
-- the partial unique index lets one row at a time hold a key. Rows from
-- before this migration have no key and are in no index entry.
ALTER TABLE jobs ADD COLUMN unique_key text COLLATE "C", ADD COLUMN unique_states smallint;

CREATE UNIQUE INDEX jobs_unique_idx ON jobs (unique_key)
    WHERE unique_key IS NOT NULL AND (unique_states & CASE status
        WHEN 'scheduled' THEN 1 WHEN 'available' THEN 2 WHEN 'running' THEN 4 WHEN 'completed' THEN 8
        WHEN 'failed' THEN 16 WHEN 'lost' THEN 32 ELSE 64 END) <> 0;
