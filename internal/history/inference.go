package history

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Inference is one serving workload's, or one model name's within it,
// request and generated-token counts over one cycle (the counters'
// increases), as Cycle.Inference carries them.
type Inference struct {
	Workload string
	// Model is the model name the server labels its counters with; ""
	// is the workload's own total.
	Model string
	// Server is the inference server whose counters these are ("vllm",
	// "triton").
	Server   string
	Requests float64
	// Tokens is nil when the server counts no generated tokens.
	Tokens *float64
}

// addInference adds c's counts into their hour.
func addInference(ctx context.Context, tx *sql.Tx, c Cycle) error {
	if len(c.Inference) == 0 {
		return nil
	}
	put, err := tx.PrepareContext(ctx, `INSERT INTO inference_hourly (cluster, bucket, workload, model, server, requests, tokens)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (cluster, bucket, workload, model) DO UPDATE SET server = excluded.server,
		  requests = requests + excluded.requests,
		  tokens = CASE WHEN tokens IS NULL AND excluded.tokens IS NULL THEN NULL ELSE coalesce(tokens, 0) + coalesce(excluded.tokens, 0) END`)
	if err != nil {
		return err
	}
	defer put.Close()
	hour := c.Start.Truncate(time.Hour).Unix()
	for _, in := range c.Inference {
		var tok any
		if in.Tokens != nil {
			tok = *in.Tokens
		}
		if _, err := put.ExecContext(ctx, c.Cluster, hour, in.Workload, in.Model, in.Server, in.Requests, tok); err != nil {
			return fmt.Errorf("inference counts of %s %q: %w", in.Workload, in.Model, err)
		}
	}
	return nil
}

// InferenceRow is one workload's or model name's counts in one hour of
// one cluster.
type InferenceRow struct {
	Cluster string
	Bucket  time.Time
	Inference
}

// Inference reads the inference counts of a cluster ("" = every cluster)
// for the hours starting in [from, to), in hour, cluster, workload, model
// order (a workload's total before its models).
func (s *Store) Inference(ctx context.Context, clusterName string, from, to time.Time) ([]InferenceRow, error) {
	q := `SELECT cluster, bucket, workload, model, server, requests, tokens FROM inference_hourly WHERE bucket >= ? AND bucket < ?`
	args := []any{from.Unix(), to.Unix()}
	if clusterName != "" {
		q, args = q+" AND cluster = ?", append(args, clusterName)
	}
	rows, err := s.db.QueryContext(ctx, q+" ORDER BY bucket, cluster, workload, model", args...)
	if err != nil {
		return nil, fmt.Errorf("reading history %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []InferenceRow
	for rows.Next() {
		var r InferenceRow
		var bucket int64
		var tok sql.NullFloat64
		if err := rows.Scan(&r.Cluster, &bucket, &r.Workload, &r.Model, &r.Server, &r.Requests, &tok); err != nil {
			return nil, fmt.Errorf("reading history %s: %w", s.path, err)
		}
		r.Bucket = time.Unix(bucket, 0).UTC()
		if tok.Valid {
			v := tok.Float64
			r.Tokens = &v
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
