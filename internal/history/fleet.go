package history

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// FleetGPUs is how many physical GPUs of one model were offered in one
// sharing mode (exclusive, mig, time-slicing) at a cycle's end.
type FleetGPUs struct {
	Model   string `json:"gpu_model"`
	Sharing string `json:"sharing"`
	GPUs    int64  `json:"gpus"`
}

// FleetPoint is the fleet of one model and sharing mode at the end of
// the latest cycle recorded in a bucket.
type FleetPoint struct {
	Bucket time.Time `json:"bucket"`
	FleetGPUs
}

// addFleet makes c's fleet the fleet of its hour and day unless a later
// cycle's fleet is there already. A nil fleet (not read) changes nothing.
func addFleet(ctx context.Context, tx *sql.Tx, c Cycle) error {
	if c.Fleet == nil {
		return nil
	}
	hour, day := c.Start.Truncate(time.Hour).Unix(), startOfDay(c.Start).Unix()
	for _, t := range []struct {
		name   string
		bucket int64
	}{{"fleet_hourly", hour}, {"fleet_daily", day}} {
		if err := replaceFleet(ctx, tx, t.name, t.bucket, c); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	return nil
}

func replaceFleet(ctx context.Context, tx *sql.Tx, table string, bucket int64, c Cycle) error {
	var latest int64
	err := tx.QueryRowContext(ctx, "SELECT coalesce(max(at), 0) FROM "+table+" WHERE cluster = ? AND bucket = ?",
		c.Cluster, bucket).Scan(&latest)
	if err != nil || latest > c.End.Unix() {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM "+table+" WHERE cluster = ? AND bucket = ?", c.Cluster, bucket); err != nil {
		return err
	}
	for _, f := range c.Fleet {
		_, err := tx.ExecContext(ctx, "INSERT INTO "+table+" (cluster, bucket, gpu_model, sharing, gpus, at) VALUES (?, ?, ?, ?, ?, ?)",
			c.Cluster, bucket, f.Model, f.Sharing, f.GPUs, c.End.Unix())
		if err != nil {
			return err
		}
	}
	return nil
}

// Fleet returns the fleet per bucket, model and sharing mode of q's
// cluster ("" = every cluster, summed), in bucket, model, sharing order.
// q's Kind and Key are ignored: the fleet is the whole cluster's.
func (s *Store) Fleet(ctx context.Context, q Query) ([]FleetPoint, error) {
	table, err := q.Granularity.table()
	if err != nil {
		return nil, err
	}
	where, args := "bucket >= ? AND bucket < ?", []any{q.From.Unix(), q.To.Unix()}
	if q.Cluster != "" {
		where, args = where+" AND cluster = ?", append(args, q.Cluster)
	}
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf(`SELECT bucket, gpu_model, sharing, sum(gpus) FROM fleet_%s WHERE %s
		GROUP BY bucket, gpu_model, sharing ORDER BY bucket, gpu_model, sharing`, table, where), args...)
	if err != nil {
		return nil, fmt.Errorf("reading history %s: %w", s.path, err)
	}
	defer rows.Close()
	out := []FleetPoint{}
	for rows.Next() {
		var p FleetPoint
		var bucket int64
		if err := rows.Scan(&bucket, &p.Model, &p.Sharing, &p.GPUs); err != nil {
			return nil, fmt.Errorf("reading history %s: %w", s.path, err)
		}
		p.Bucket = time.Unix(bucket, 0).UTC()
		out = append(out, p)
	}
	return out, rows.Err()
}
