-- Migration 0004: schema version 3 to 4. The run-to-run spread of native (issue 19,
-- docs/tuning.md "Validation"): collsel-bench --validate times native twice at every point, as
-- two separate interleaved candidates (native A, the existing native_us and native_loop_us,
-- and native B), so that a ratio selected/native can be judged against the noise measured in
-- the same run. validation gets native B's medians under each metric; rows validated before
-- this migration keep their values and have NULL there.
ALTER TABLE validation ADD COLUMN native2_us REAL;
ALTER TABLE validation ADD COLUMN native2_loop_us REAL;
