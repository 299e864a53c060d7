package history

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"path"
	"sort"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations are the embedded migration scripts in order; migration i
// takes the schema from version i to i+1.
func migrations() ([]string, error) {
	names, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		return nil, err
	}
	sort.Slice(names, func(i, j int) bool { return names[i].Name() < names[j].Name() })
	out := make([]string, len(names))
	for i, n := range names {
		b, err := migrationFiles.ReadFile(path.Join("migrations", n.Name()))
		if err != nil {
			return nil, err
		}
		out[i] = string(b)
	}
	return out, nil
}

// SchemaVersion is the schema this binary writes.
func SchemaVersion() int {
	m, _ := migrations()
	return len(m)
}

// Version reads the store's schema version (SQLite's user_version).
func (s *Store) Version(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// migrate applies the migrations the store lacks, each in one transaction
// with the version bump, so a crash leaves it at one version or the next.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return fmt.Errorf("reading migrations: %w", err)
	}
	have, err := s.Version(ctx)
	if err != nil {
		return fmt.Errorf("reading schema version: %w", err)
	}
	if have > len(ms) {
		return fmt.Errorf("schema version %d is newer than this gpuwise's %d: upgrade gpuwise or point --history at another file", have, len(ms))
	}
	if have == 0 {
		// Must precede the first table; lets Prune give pages back.
		if _, err := s.db.ExecContext(ctx, "PRAGMA auto_vacuum = INCREMENTAL"); err != nil {
			return fmt.Errorf("setting auto_vacuum: %w", err)
		}
	}
	for v := have; v < len(ms); v++ {
		if err := s.apply(ctx, v+1, ms[v]); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) apply(ctx context.Context, version int, script string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, script); err != nil {
			return fmt.Errorf("migration %d: %w", version, err)
		}
		_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version))
		return err
	})
}

// tx runs fn in a transaction, committing when it returns nil.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}
