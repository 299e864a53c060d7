-- 001: cycles, hourly aggregates and their daily rollup.
CREATE TABLE cycles (
  cluster  TEXT    NOT NULL,
  start    INTEGER NOT NULL, -- Unix seconds
  end      INTEGER NOT NULL,
  partial  TEXT,             -- what could not be read; NULL when complete
  PRIMARY KEY (cluster, start)
) WITHOUT ROWID;

CREATE TABLE hourly (
  cluster TEXT    NOT NULL,
  kind    TEXT    NOT NULL, -- workload | namespace | node | gpu_model
  key     TEXT    NOT NULL,
  bucket  INTEGER NOT NULL, -- Unix seconds of the hour's start
  seconds REAL NOT NULL DEFAULT 0, -- cycle time recorded in the bucket
  pods INTEGER NOT NULL DEFAULT 0, -- most pods seen in one cycle
  gpu_provisioned_hours REAL NOT NULL DEFAULT 0,
  gpu_allocated_hours   REAL NOT NULL DEFAULT 0,
  gpu_active_hours      REAL NOT NULL DEFAULT 0,
  gpu_idle_hours        REAL NOT NULL DEFAULT 0,
  gpu_unmeasured_hours  REAL NOT NULL DEFAULT 0,
  gpu_unallocated_hours REAL NOT NULL DEFAULT 0,
  gpu_active_usd        REAL NOT NULL DEFAULT 0,
  gpu_idle_usd          REAL NOT NULL DEFAULT 0,
  gpu_unmeasured_usd    REAL NOT NULL DEFAULT 0,
  gpu_unallocated_usd   REAL NOT NULL DEFAULT 0,
  cpu_usd               REAL NOT NULL DEFAULT 0,
  memory_usd            REAL NOT NULL DEFAULT 0,
  cpu_memory_unallocated_usd REAL NOT NULL DEFAULT 0,
  total_usd             REAL NOT NULL DEFAULT 0,
  unpriced_gpu_hours    REAL NOT NULL DEFAULT 0,
  oom_kills             INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (cluster, kind, key, bucket)
) WITHOUT ROWID;
CREATE INDEX hourly_bucket ON hourly (bucket);

CREATE TABLE daily (
  cluster TEXT    NOT NULL,
  kind    TEXT    NOT NULL,
  key     TEXT    NOT NULL,
  bucket  INTEGER NOT NULL, -- Unix seconds of the UTC day's start
  seconds REAL NOT NULL DEFAULT 0,
  pods INTEGER NOT NULL DEFAULT 0,
  gpu_provisioned_hours REAL NOT NULL DEFAULT 0,
  gpu_allocated_hours   REAL NOT NULL DEFAULT 0,
  gpu_active_hours      REAL NOT NULL DEFAULT 0,
  gpu_idle_hours        REAL NOT NULL DEFAULT 0,
  gpu_unmeasured_hours  REAL NOT NULL DEFAULT 0,
  gpu_unallocated_hours REAL NOT NULL DEFAULT 0,
  gpu_active_usd        REAL NOT NULL DEFAULT 0,
  gpu_idle_usd          REAL NOT NULL DEFAULT 0,
  gpu_unmeasured_usd    REAL NOT NULL DEFAULT 0,
  gpu_unallocated_usd   REAL NOT NULL DEFAULT 0,
  cpu_usd               REAL NOT NULL DEFAULT 0,
  memory_usd            REAL NOT NULL DEFAULT 0,
  cpu_memory_unallocated_usd REAL NOT NULL DEFAULT 0,
  total_usd             REAL NOT NULL DEFAULT 0,
  unpriced_gpu_hours    REAL NOT NULL DEFAULT 0,
  oom_kills             INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (cluster, kind, key, bucket)
) WITHOUT ROWID;
CREATE INDEX daily_bucket ON daily (bucket);
