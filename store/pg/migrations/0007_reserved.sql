-- Reserved: migration 0007 is the queue rate limits' (issue 11, on another
-- branch), and 0008 and 0009 follow it. This file only keeps the numbers
-- without a gap until that branch is merged: the merge deletes it.
SELECT 1;
