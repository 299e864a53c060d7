package history

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Granularity picks the table a query reads.
type Granularity string

// Granularities.
const (
	Hourly Granularity = "hour"
	Daily  Granularity = "day"
)

func (g Granularity) table() (string, error) {
	switch g {
	case Hourly, "":
		return "hourly", nil
	case Daily:
		return "daily", nil
	}
	return "", fmt.Errorf("history: granularity %q is not hour or day", g)
}

// Query selects rows: one cluster ("" = every cluster, summed), one kind,
// optionally one key, buckets starting in [From, To).
type Query struct {
	Cluster     string
	Kind        string
	Key         string
	From, To    time.Time
	Granularity Granularity
}

// Point is one key's values in one bucket.
type Point struct {
	Bucket time.Time `json:"bucket"`
	Key    string    `json:"key"`
	Values
}

func (q Query) where() (string, []any) {
	conds := []string{"kind = ?", "bucket >= ?", "bucket < ?"}
	args := []any{q.Kind, q.From.Unix(), q.To.Unix()}
	if q.Cluster != "" {
		conds, args = append(conds, "cluster = ?"), append(args, q.Cluster)
	}
	if q.Key != "" {
		conds, args = append(conds, "key = ?"), append(args, q.Key)
	}
	return strings.Join(conds, " AND "), args
}

// sums are the SELECT list adding up rows (pods: the largest).
func sums() string {
	s := make([]string, len(columns))
	for i, c := range columns {
		if c == "pods" {
			s[i] = "max(pods)"
		} else {
			s[i] = "sum(" + c + ")"
		}
	}
	return strings.Join(s, ", ")
}

// Series returns the values per bucket and key, in bucket then key order.
func (s *Store) Series(ctx context.Context, q Query) ([]Point, error) {
	table, err := q.Granularity.table()
	if err != nil {
		return nil, err
	}
	where, args := q.where()
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf("SELECT bucket, key, %s FROM %s WHERE %s GROUP BY bucket, key ORDER BY bucket, key",
		sums(), table, where), args...)
	if err != nil {
		return nil, fmt.Errorf("reading history %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []Point
	for rows.Next() {
		var p Point
		var bucket int64
		if err := rows.Scan(append([]any{&bucket, &p.Key}, p.Fields()...)...); err != nil {
			return nil, fmt.Errorf("reading history %s: %w", s.path, err)
		}
		p.Bucket = time.Unix(bucket, 0).UTC()
		out = append(out, p)
	}
	return out, rows.Err()
}

// Totals returns each key's values summed over the query's range.
func (s *Store) Totals(ctx context.Context, q Query) (map[string]Values, error) {
	table, err := q.Granularity.table()
	if err != nil {
		return nil, err
	}
	where, args := q.where()
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf("SELECT key, %s FROM %s WHERE %s GROUP BY key", sums(), table, where), args...)
	if err != nil {
		return nil, fmt.Errorf("reading history %s: %w", s.path, err)
	}
	defer rows.Close()
	out := map[string]Values{}
	for rows.Next() {
		var key string
		var v Values
		if err := rows.Scan(append([]any{&key}, v.Fields()...)...); err != nil {
			return nil, fmt.Errorf("reading history %s: %w", s.path, err)
		}
		out[key] = v
	}
	return out, rows.Err()
}

// Coverage says how much of a range the recorded cycles cover.
type Coverage struct {
	Cycles  int     `json:"cycles"`
	Seconds float64 `json:"seconds"`
	Partial int     `json:"partial_cycles"`
	// First and Last bound the recorded cycles (zero when there are none).
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
}

// Coverage counts the cycles of a cluster ("" = all) starting in
// [from, to).
func (s *Store) Coverage(ctx context.Context, cluster string, from, to time.Time) (Coverage, error) {
	q := `SELECT count(*), coalesce(sum(end - start), 0), count(partial), coalesce(min(start), 0), coalesce(max(end), 0)
		FROM cycles WHERE start >= ? AND start < ?`
	args := []any{from.Unix(), to.Unix()}
	if cluster != "" {
		q, args = q+" AND cluster = ?", append(args, cluster)
	}
	var c Coverage
	var first, last int64
	if err := s.db.QueryRowContext(ctx, q, args...).Scan(&c.Cycles, &c.Seconds, &c.Partial, &first, &last); err != nil {
		return c, fmt.Errorf("reading history %s: %w", s.path, err)
	}
	if c.Cycles > 0 {
		c.First, c.Last = time.Unix(first, 0).UTC(), time.Unix(last, 0).UTC()
	}
	return c, nil
}

// Last is the end of the latest cycle recorded for cluster, zero when none.
func (s *Store) Last(ctx context.Context, cluster string) (time.Time, error) {
	var end int64
	err := s.db.QueryRowContext(ctx, "SELECT coalesce(max(end), 0) FROM cycles WHERE cluster = ?", cluster).Scan(&end)
	if err != nil || end == 0 {
		return time.Time{}, err
	}
	return time.Unix(end, 0).UTC(), nil
}

// Clusters lists the clusters the store holds.
func (s *Store) Clusters(ctx context.Context) ([]string, error) {
	return s.column(ctx, "SELECT DISTINCT cluster FROM cycles ORDER BY cluster", "reading")
}

// Kinds are the kinds the hourly rows hold (tally.Kinds and the recorded
// labels, "label:KEY"), sorted.
func (s *Store) Kinds(ctx context.Context) ([]string, error) {
	return s.column(ctx, "SELECT DISTINCT kind FROM hourly ORDER BY kind", "reading")
}

// column runs a query of one text column and returns its values; doing
// names what failed ("reading", "listing plans in").
func (s *Store) column(ctx context.Context, query, doing string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("%s history %s: %w", doing, s.path, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
