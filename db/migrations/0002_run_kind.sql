-- Migration 0002: schema version 1 to 2. run.kind says what a run did, 'tune' (measure and decide rules) or 'validate'
-- (collsel-bench --validate). Before it, a validation run was recognised by the 'validate '
-- prefix collsel-bench puts on run.args; existing rows get their kind from that prefix.
ALTER TABLE run ADD COLUMN kind TEXT NOT NULL DEFAULT 'tune' CHECK (kind IN ('tune', 'validate'));
UPDATE run SET kind = 'validate' WHERE substr(args, 1, 9) = 'validate ';
