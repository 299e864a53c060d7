-- 004: the savings plan the tracker keeps between runs (docs/progress.md):
-- one row per cluster, the plan as JSON (baseline, actions, detection),
-- replaced by each cycle; and the users' marks on actions, kept apart so
-- that a second process (gpuwise progress mark) can add one while the
-- service writes the plan.
CREATE TABLE plan (
  cluster TEXT    NOT NULL PRIMARY KEY,
  updated INTEGER NOT NULL, -- Unix seconds of the last window end observed
  state   BLOB    NOT NULL  -- tracker.Plan as JSON
) WITHOUT ROWID;

CREATE TABLE plan_marks (
  cluster TEXT    NOT NULL,
  action  TEXT    NOT NULL, -- the tracked action's id
  at      INTEGER NOT NULL, -- Unix nanoseconds of the mark
  status  TEXT    NOT NULL, -- applied | rejected | '' (cleared)
  note    TEXT    NOT NULL DEFAULT '',
  PRIMARY KEY (cluster, action, at)
) WITHOUT ROWID;
