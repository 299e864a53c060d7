-- 005: the inference servers' counters per hour (the increases of vLLM's,
-- Triton's request and generated-token counters the cycles read), per
-- serving workload and per model name the server labels them with
-- (model '' is the workload's own total, labelled or not), so that cost
-- per 1,000 inferences and per 100,000 tokens have an hourly trend: the
-- hour's cost is the workload rows' total_usd in hourly. tokens is NULL
-- when the server counts no tokens (never 0 for "not counted").
-- (Numbered 005: 004 is the savings plan's table, on another branch.)
CREATE TABLE inference_hourly (
  cluster  TEXT    NOT NULL,
  bucket   INTEGER NOT NULL, -- Unix seconds of the hour's start
  workload TEXT    NOT NULL,
  model    TEXT    NOT NULL DEFAULT '',
  server   TEXT    NOT NULL DEFAULT '',
  requests REAL    NOT NULL DEFAULT 0,
  tokens   REAL,
  PRIMARY KEY (cluster, bucket, workload, model)
) WITHOUT ROWID;
