package history

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Record adds one cycle to the store in one transaction: the cycle row,
// then each entry added into its hour and its UTC day. recorded is false
// when the cycle (cluster, start) is already in the store, which is then
// left as it was: recording a cycle again after a crash counts it once.
func (s *Store) Record(ctx context.Context, c Cycle) (recorded bool, err error) {
	if err := c.validate(); err != nil {
		return false, err
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		var partial any
		if c.Partial != "" {
			partial = c.Partial
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO cycles (cluster, start, end, partial) VALUES (?, ?, ?, ?)
			ON CONFLICT (cluster, start) DO NOTHING`, c.Cluster, c.Start.Unix(), c.End.Unix(), partial)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		recorded = true
		if err := addEntries(ctx, tx, c); err != nil {
			return err
		}
		if err := addUnits(ctx, tx, c); err != nil {
			return err
		}
		if err := addInference(ctx, tx, c); err != nil {
			return err
		}
		return addFleet(ctx, tx, c)
	})
	if err != nil {
		return false, fmt.Errorf("recording the cycle at %s in history %s: %w", c.Start.UTC().Format(time.RFC3339), s.path, err)
	}
	return recorded, nil
}

func (c Cycle) validate() error {
	hour := c.Start.Truncate(time.Hour)
	switch {
	case !c.End.After(c.Start):
		return fmt.Errorf("history: cycle %s..%s is empty", c.Start, c.End)
	case c.End.After(hour.Add(time.Hour)):
		return fmt.Errorf("history: cycle %s..%s crosses the hour: cycles must divide the hour", c.Start.UTC(), c.End.UTC())
	case c.Start.Unix()*int64(time.Second) != c.Start.UnixNano():
		return fmt.Errorf("history: cycle start %s is not a whole second", c.Start)
	}
	return nil
}

func addEntries(ctx context.Context, tx *sql.Tx, c Cycle) error {
	hour, day := c.Start.Truncate(time.Hour).Unix(), startOfDay(c.Start).Unix()
	for _, table := range []struct {
		name   string
		bucket int64
	}{{"hourly", hour}, {"daily", day}} {
		stmt, err := tx.PrepareContext(ctx, upsertSQL(table.name))
		if err != nil {
			return err
		}
		for _, e := range c.Entries {
			v := e.Values
			args := append([]any{c.Cluster, e.Kind, e.Key, table.bucket}, v.Fields()...)
			if _, err := stmt.ExecContext(ctx, args...); err != nil {
				stmt.Close()
				return fmt.Errorf("%s %s %q: %w", table.name, e.Kind, e.Key, err)
			}
		}
		stmt.Close()
	}
	return nil
}

func startOfDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// upsertSQL inserts a row or adds to the one there (pods: the larger).
func upsertSQL(table string) string {
	set := make([]string, len(columns))
	for i, c := range columns {
		if c == "pods" {
			set[i] = "pods = max(pods, excluded.pods)"
		} else {
			set[i] = c + " = " + c + " + excluded." + c
		}
	}
	marks := strings.Repeat(", ?", len(columns))
	return fmt.Sprintf(`INSERT INTO %s (cluster, kind, key, bucket, %s) VALUES (?, ?, ?, ?%s)
		ON CONFLICT (cluster, kind, key, bucket) DO UPDATE SET %s`,
		table, strings.Join(columns, ", "), marks, strings.Join(set, ", "))
}

// Prune deletes hourly rows and cycles before hourlyBefore and daily rows
// before dailyBefore, then gives freed pages back to the file system.
func (s *Store) Prune(ctx context.Context, hourlyBefore, dailyBefore time.Time) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		for _, q := range []struct {
			sql string
			t   time.Time
		}{
			{"DELETE FROM hourly WHERE bucket < ?", hourlyBefore},
			{"DELETE FROM cycles WHERE start < ?", hourlyBefore},
			{"DELETE FROM daily WHERE bucket < ?", dailyBefore},
			{"DELETE FROM fleet_hourly WHERE bucket < ?", hourlyBefore},
			{"DELETE FROM unit_hourly WHERE bucket < ?", hourlyBefore},
			{"DELETE FROM inference_hourly WHERE bucket < ?", hourlyBefore},
			{"DELETE FROM fleet_daily WHERE bucket < ?", dailyBefore},
		} {
			if _, err := tx.ExecContext(ctx, q.sql, q.t.Unix()); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		_, err = s.db.ExecContext(ctx, "PRAGMA incremental_vacuum")
	}
	if err != nil {
		return fmt.Errorf("pruning history %s: %w", s.path, err)
	}
	return nil
}
