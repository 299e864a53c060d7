-- 003: each GPU unit's time per hour (whole GPUs, MIG slices, time-slice
-- shares), what the low-utilization list needs over a range: node life,
-- held, measured and active seconds, the holders and the measured held
-- seconds per whole-percent activity bucket. One row per price the unit's
-- node had in the hour, so that dollars stay exact when a price changes.
CREATE TABLE unit_hourly (
  cluster   TEXT    NOT NULL,
  unit      TEXT    NOT NULL,
  bucket    INTEGER NOT NULL, -- Unix seconds of the hour's start
  gpu_usd_per_hour REAL NOT NULL, -- the node's GPU price; -1 when unpriced
  node      TEXT    NOT NULL,
  gpu_model TEXT    NOT NULL,
  kind      TEXT    NOT NULL,
  profile   TEXT    NOT NULL DEFAULT '',
  fraction  REAL    NOT NULL, -- of its physical GPU
  life_seconds     REAL NOT NULL DEFAULT 0,
  held_seconds     REAL NOT NULL DEFAULT 0,
  measured_seconds REAL NOT NULL DEFAULT 0,
  active_seconds   REAL NOT NULL DEFAULT 0,
  unmeasured INTEGER NOT NULL DEFAULT 0, -- 1: some held time had no series
  holders   TEXT    NOT NULL DEFAULT '', -- workload keys, one a line, sorted
  hist      BLOB,                        -- non-zero buckets: 1 byte percent, 8 bytes float64 LE seconds
  PRIMARY KEY (cluster, bucket, unit, gpu_usd_per_hour)
) WITHOUT ROWID;
