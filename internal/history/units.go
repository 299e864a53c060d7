package history

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// unpricedKey stands for "no price" in unit_hourly's key.
const unpricedKey = -1.0

// encodeHist keeps a histogram's non-zero buckets: a byte for the percent,
// eight for the seconds (float64, little endian, exact).
func encodeHist(h *[usage.ActivityBuckets]float64) []byte {
	var out []byte
	for b, s := range h {
		if s != 0 {
			out = append(out, byte(b))
			out = binary.LittleEndian.AppendUint64(out, math.Float64bits(s))
		}
	}
	return out
}

func decodeHist(p []byte, h *[usage.ActivityBuckets]float64) error {
	if len(p)%9 != 0 {
		return fmt.Errorf("unit histogram: %d bytes is not whole buckets", len(p))
	}
	for ; len(p) > 0; p = p[9:] {
		b := int(p[0])
		if b >= usage.ActivityBuckets {
			return fmt.Errorf("unit histogram: bucket %d out of range", b)
		}
		h[b] += math.Float64frombits(binary.LittleEndian.Uint64(p[1:9]))
	}
	return nil
}

func priceKey(p *float64) float64 {
	if p == nil {
		return unpricedKey
	}
	return *p
}

// addUnits adds c's units into their hour: a row there (the same unit at
// the same price) is read, merged and written back.
func addUnits(ctx context.Context, tx *sql.Tx, c Cycle) error {
	if len(c.Units) == 0 {
		return nil
	}
	hour := c.Start.Truncate(time.Hour).Unix()
	get, err := tx.PrepareContext(ctx, `SELECT life_seconds, held_seconds, measured_seconds, active_seconds, unmeasured, holders, hist
		FROM unit_hourly WHERE cluster = ? AND bucket = ? AND unit = ? AND gpu_usd_per_hour = ?`)
	if err != nil {
		return err
	}
	defer get.Close()
	put, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO unit_hourly (cluster, unit, bucket, gpu_usd_per_hour, node, gpu_model, kind, profile,
		fraction, life_seconds, held_seconds, measured_seconds, active_seconds, unmeasured, holders, hist)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer put.Close()
	for i := range c.Units {
		u := c.Units[i] // a copy: merged with the row there
		price := priceKey(u.GPUUSDPerHour)
		var old cost.UnitHours
		var holders string
		var hist []byte
		var unmeasured int
		err := get.QueryRowContext(ctx, c.Cluster, hour, u.Unit, price).Scan(&old.LifeSeconds, &old.HeldSeconds,
			&old.MeasuredSeconds, &old.ActiveSeconds, &unmeasured, &holders, &hist)
		switch {
		case err == sql.ErrNoRows:
		case err != nil:
			return fmt.Errorf("unit %q: %w", u.Unit, err)
		default:
			old.Unmeasured = unmeasured != 0
			if holders != "" {
				old.Holders = strings.Split(holders, "\n")
			}
			if err := decodeHist(hist, &old.Hist); err != nil {
				return fmt.Errorf("unit %q: %w", u.Unit, err)
			}
			old.Merge(&u)
			old.Unit, old.GPUUSDPerHour = u.Unit, u.GPUUSDPerHour
			u = old
		}
		um := 0
		if u.Unmeasured {
			um = 1
		}
		if _, err := put.ExecContext(ctx, c.Cluster, u.Unit, hour, price, u.Node, u.Model, string(u.Kind), u.Profile, u.Fraction,
			u.LifeSeconds, u.HeldSeconds, u.MeasuredSeconds, u.ActiveSeconds, um, strings.Join(u.Holders, "\n"), encodeHist(&u.Hist)); err != nil {
			return fmt.Errorf("unit %q: %w", u.Unit, err)
		}
	}
	return nil
}

// UnitRow is one unit's time in one hour of one cluster.
type UnitRow struct {
	Cluster string
	Bucket  time.Time
	cost.UnitHours
}

// Units reads the units' hourly rows of a cluster ("" = every cluster)
// for the hours starting in [from, to), in hour then cluster then unit
// order.
func (s *Store) Units(ctx context.Context, clusterName string, from, to time.Time) ([]UnitRow, error) {
	return s.units(ctx, clusterName, "", from, to)
}

// Unit reads one unit's hourly rows (as Units, only those of unit).
func (s *Store) Unit(ctx context.Context, clusterName, unit string, from, to time.Time) ([]UnitRow, error) {
	return s.units(ctx, clusterName, unit, from, to)
}

func (s *Store) units(ctx context.Context, clusterName, unit string, from, to time.Time) ([]UnitRow, error) {
	var out []UnitRow
	err := s.eachUnit(ctx, clusterName, unit, from, to, "bucket, cluster, unit, gpu_usd_per_hour", func(r *UnitRow) error {
		out = append(out, *r)
		return nil
	})
	return out, err
}

// EachUnit calls fn with each of the units' hourly rows of a cluster (""
// = every cluster) for the hours starting in [from, to), as Units reads
// them but one at a time, in cluster then hour then unit order (the
// table's own: no sort) — a unit's rows in hour order as in Units. fn's
// row is reused for the next one: fn must copy what it keeps. An error
// from fn stops the reading and is returned.
func (s *Store) EachUnit(ctx context.Context, clusterName string, from, to time.Time, fn func(*UnitRow) error) error {
	return s.eachUnit(ctx, clusterName, "", from, to, "cluster, bucket, unit, gpu_usd_per_hour", fn)
}

func (s *Store) eachUnit(ctx context.Context, clusterName, unit string, from, to time.Time, order string, fn func(*UnitRow) error) error {
	q := `SELECT cluster, bucket, unit, gpu_usd_per_hour, node, gpu_model, kind, profile, fraction, life_seconds, held_seconds,
		measured_seconds, active_seconds, unmeasured, holders, hist FROM unit_hourly WHERE bucket >= ? AND bucket < ?`
	args := []any{from.Unix(), to.Unix()}
	if clusterName != "" {
		q, args = q+" AND cluster = ?", append(args, clusterName)
	}
	if unit != "" {
		q, args = q+" AND unit = ?", append(args, unit)
	}
	rows, err := s.db.QueryContext(ctx, q+" ORDER BY "+order, args...)
	if err != nil {
		return fmt.Errorf("reading history %s: %w", s.path, err)
	}
	defer rows.Close()
	var r UnitRow
	var bucket int64
	var price float64
	var kind, holders string
	var hist []byte
	var unmeasured int
	for rows.Next() {
		r = UnitRow{}
		if err := rows.Scan(&r.Cluster, &bucket, &r.Unit, &price, &r.Node, &r.Model, &kind, &r.Profile, &r.Fraction, &r.LifeSeconds,
			&r.HeldSeconds, &r.MeasuredSeconds, &r.ActiveSeconds, &unmeasured, &holders, &hist); err != nil {
			return fmt.Errorf("reading history %s: %w", s.path, err)
		}
		if err := decodeHist(hist, &r.Hist); err != nil {
			return fmt.Errorf("reading history %s: unit %q at %d: %w", s.path, r.Unit, bucket, err)
		}
		r.Bucket = time.Unix(bucket, 0).UTC()
		if price != unpricedKey {
			p := price
			r.GPUUSDPerHour = &p
		}
		r.Kind, r.Unmeasured = cluster.UnitKind(kind), unmeasured != 0
		r.Holders = []string{}
		if holders != "" {
			r.Holders = strings.Split(holders, "\n")
		}
		if err := fn(&r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading history %s: %w", s.path, err)
	}
	return nil
}

// UnitClusters is the clusters with unit rows in the hours starting in
// [from, to), sorted: a seek per cluster the table holds, not a scan of
// the range.
func (s *Store) UnitClusters(ctx context.Context, from, to time.Time) ([]string, error) {
	var out []string
	next := ""
	for {
		var c string
		err := s.db.QueryRowContext(ctx, `SELECT cluster FROM unit_hourly WHERE cluster > ? ORDER BY cluster LIMIT 1`, next).Scan(&c)
		if err == sql.ErrNoRows {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading history %s: %w", s.path, err)
		}
		var one int
		err = s.db.QueryRowContext(ctx, `SELECT 1 FROM unit_hourly WHERE cluster = ? AND bucket >= ? AND bucket < ? LIMIT 1`,
			c, from.Unix(), to.Unix()).Scan(&one)
		switch {
		case err == nil:
			out = append(out, c)
		case err != sql.ErrNoRows:
			return nil, fmt.Errorf("reading history %s: %w", s.path, err)
		}
		next = c
	}
}
