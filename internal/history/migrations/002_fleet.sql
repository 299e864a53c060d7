-- 002: the GPU fleet by model and sharing mode at the end of each bucket's
-- latest cycle (a gauge, not a sum: a later cycle replaces the bucket's rows).
CREATE TABLE fleet_hourly (
  cluster   TEXT    NOT NULL,
  bucket    INTEGER NOT NULL, -- Unix seconds of the hour's start
  gpu_model TEXT    NOT NULL,
  sharing   TEXT    NOT NULL, -- exclusive | mig | time-slicing
  gpus      INTEGER NOT NULL, -- physical GPUs at the cycle's end
  at        INTEGER NOT NULL, -- Unix seconds of that cycle's end
  PRIMARY KEY (cluster, bucket, gpu_model, sharing)
) WITHOUT ROWID;

CREATE TABLE fleet_daily (
  cluster   TEXT    NOT NULL,
  bucket    INTEGER NOT NULL, -- Unix seconds of the UTC day's start
  gpu_model TEXT    NOT NULL,
  sharing   TEXT    NOT NULL,
  gpus      INTEGER NOT NULL,
  at        INTEGER NOT NULL,
  PRIMARY KEY (cluster, bucket, gpu_model, sharing)
) WITHOUT ROWID;
