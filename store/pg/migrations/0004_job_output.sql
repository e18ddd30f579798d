-- Recorded output: the JSON document a handler recorded
-- for a completed row. json, not jsonb, so that its text comes back byte
-- for byte, as payloads do. NULL: none, and every row from before.
ALTER TABLE jobs ADD COLUMN output json;
