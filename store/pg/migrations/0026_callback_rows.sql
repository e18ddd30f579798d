-- A batch's row goes with the last row of its callback, not with the
-- callback's first attempt: a retry of the callback (after a rescue, an
-- error or a snooze) reads its batch when it runs, so deleting the first
-- attempt (retention, an operator's delete) while a later one waited
-- left that attempt failing on a batch that was gone. The deletes find
-- a callback's remaining rows by this index, which only callback rows
-- enter.
CREATE INDEX jobs_callback_idx ON jobs (callback_of) WHERE callback_of IS NOT NULL;
