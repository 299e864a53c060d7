package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gpuwise/gpuwise/internal/tracker"
)

// SavePlan replaces the cluster's tracked plan.
func (s *Store) SavePlan(ctx context.Context, p *tracker.Plan) error {
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encoding the plan of cluster %q: %w", p.Cluster, err)
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO plan (cluster, updated, state) VALUES (?, ?, ?)
		ON CONFLICT (cluster) DO UPDATE SET updated = excluded.updated, state = excluded.state`, p.Cluster, p.Updated.Unix(), b)
	if err != nil {
		return fmt.Errorf("saving the plan of cluster %q in history %s: %w", p.Cluster, s.path, err)
	}
	return nil
}

// Plan is the cluster's tracked plan with the marks applied, nil when
// none was saved.
func (s *Store) Plan(ctx context.Context, clusterName string) (*tracker.Plan, error) {
	var b []byte
	err := s.db.QueryRowContext(ctx, "SELECT state FROM plan WHERE cluster = ?", clusterName).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the plan of cluster %q from history %s: %w", clusterName, s.path, err)
	}
	var p tracker.Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("history %s: the plan of cluster %q does not decode: %w", s.path, clusterName, err)
	}
	return &p, nil
}

// PlanClusters are the clusters with a saved plan, in order.
func (s *Store) PlanClusters(ctx context.Context) ([]string, error) {
	return s.column(ctx, "SELECT cluster FROM plan ORDER BY cluster", "listing plans in")
}

// MarkRow is one user's mark on an action.
type MarkRow struct {
	Action string
	At     time.Time
	Status string // applied, rejected, or "" (cleared)
	Note   string
}

// AddMark records a mark (status "" clears the action's mark).
func (s *Store) AddMark(ctx context.Context, clusterName string, m MarkRow) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO plan_marks (cluster, action, at, status, note) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (cluster, action, at) DO UPDATE SET status = excluded.status, note = excluded.note`,
		clusterName, m.Action, m.At.UnixNano(), m.Status, m.Note)
	if err != nil {
		return fmt.Errorf("recording the mark on %s in history %s: %w", m.Action, s.path, err)
	}
	return nil
}

// Marks are the latest mark per action of the cluster, by action id.
func (s *Store) Marks(ctx context.Context, clusterName string) (map[string]MarkRow, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT action, at, status, note FROM plan_marks WHERE cluster = ? ORDER BY action, at", clusterName)
	if err != nil {
		return nil, fmt.Errorf("reading marks from history %s: %w", s.path, err)
	}
	defer rows.Close()
	out := map[string]MarkRow{}
	for rows.Next() {
		var m MarkRow
		var at int64
		if err := rows.Scan(&m.Action, &at, &m.Status, &m.Note); err != nil {
			return nil, err
		}
		m.At = time.Unix(0, at).UTC()
		out[m.Action] = m // later rows replace earlier ones
	}
	return out, rows.Err()
}
