-- Migration 0009: schema version 8 to 9. Isomorphic neighbourhood patterns (issue 13,
-- docs/neighbor.md): table pattern records, for a pattern whose communicator is isomorphic
-- (every process has the same relative neighbourhood on a periodic torus: the periodic
-- Cartesian patterns and the iso_* ones), its list of relative offsets, so that the selector
-- can tell an isomorphic pattern from a distributed graph of the same signature and the report
-- can compute the rounds and volume of the message-combining schedules. Existing rows keep
-- NULL (not known to be isomorphic).

ALTER TABLE pattern ADD COLUMN offsets TEXT;
