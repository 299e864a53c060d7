package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// Store is an open history database. It is safe for concurrent use: one
// connection serializes reads and writes (a cycle's write takes tens of
// milliseconds; SQLite has one writer anyway).
type Store struct {
	db   *sql.DB
	path string
}

// InMemory is the path of a store that lives in memory only (the demo
// without a volume).
const InMemory = ":memory:"

// Open opens (creating it if needed) the store at path and migrates it to
// the current schema. A store whose schema is newer than this binary's is
// refused. Errors name the path.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("opening history %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	s := &Store{db: db, path: path}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening history %s: %w", path, err)
	}
	return s, nil
}

// dsn is path with the pragmas that make commits durable: WAL journal,
// synchronous FULL, a busy timeout and IMMEDIATE transactions (a
// read-then-write transaction never fails with SQLITE_BUSY_SNAPSHOT).
func dsn(path string) string {
	if path == InMemory {
		return "file::memory:?_pragma=foreign_keys(1)&_txlock=immediate"
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// DB is the database handle, for collectors.NewDBStatsCollector.
func (s *Store) DB() *sql.DB { return s.db }

// Check runs SQLite's integrity check and returns an error listing what
// it found, nil when the store is sound.
func (s *Store) Check(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return fmt.Errorf("checking history %s: %w", s.path, err)
	}
	defer rows.Close()
	var problems []error
	for rows.Next() {
		var msg string
		if err := rows.Scan(&msg); err != nil {
			return fmt.Errorf("checking history %s: %w", s.path, err)
		}
		if msg != "ok" {
			problems = append(problems, errors.New(msg))
		}
	}
	if err := errors.Join(problems...); err != nil {
		return fmt.Errorf("history %s is damaged: %w", s.path, err)
	}
	return rows.Err()
}
