package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Store is an open history database. It is safe for concurrent use: one
// connection serializes reads and writes (a cycle's write takes tens of
// milliseconds; SQLite has one writer anyway).
type Store struct {
	db   *sql.DB
	path string
	lock *fileLock // nil for a reader (OpenExisting) and in memory
}

// InMemory is the path of a store that lives in memory only (the demo
// without a volume).
const InMemory = ":memory:"

// Open opens (creating it if needed) the store at path and migrates it to
// the current schema. A store whose schema is newer than this binary's is
// refused. Errors name the path.
//
// Open is for the one process that writes the store: it takes a lock on
// path+".lock" and fails, naming the holder, while another process holds
// it. It runs SQLite's quick check, so a damaged file is refused at start
// instead of answering 500s (issue 31 M7).
func Open(ctx context.Context, path string) (*Store, error) {
	var l *fileLock
	if path != InMemory {
		var err error
		if l, err = lock(path); err != nil {
			return nil, err
		}
	}
	s, err := openDB(ctx, path)
	if err != nil {
		l.unlock()
		return nil, err
	}
	s.lock = l
	if path != InMemory {
		if err := s.quickCheck(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// OpenExisting opens a store another process may be writing, to read it
// (gpuwise report --compare --history): the file must exist, nothing is
// locked, and a missing file is an error rather than a new, empty store
// (issue 31: it created one).
func OpenExisting(ctx context.Context, path string) (*Store, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, fmt.Errorf("history %s: %w (give the file gpuwise serve --history writes)", path, errors.Unwrap(err))
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("history %s: not a file", path)
	case fi.Size() == 0:
		return nil, fmt.Errorf("history %s: empty file, not a gpuwise history", path)
	}
	return openDB(ctx, path)
}

func openDB(ctx context.Context, path string) (*Store, error) {
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
		return nil, fmt.Errorf("opening history %s: %w%s", path, err, damagedHint(err))
	}
	return s, nil
}

// quickCheck runs PRAGMA quick_check (0.9 s on a 212 MiB store,
// ../shared/reference/service.md §3).
func (s *Store) quickCheck(ctx context.Context) error {
	var msg string
	if err := s.db.QueryRowContext(ctx, "PRAGMA quick_check(1)").Scan(&msg); err != nil {
		return fmt.Errorf("checking history %s: %w%s", s.path, err, damagedHint(err))
	}
	if msg != "ok" {
		return damagedError{fmt.Sprintf("history %s is damaged: %s%s", s.path, strings.Join(strings.Fields(msg), " "), damagedHint(ErrDamaged))}
	}
	return nil
}

// ErrDamaged is wrapped by the errors of a store SQLite finds corrupt.
var ErrDamaged = errors.New("the history file is damaged")

// damagedError is a damage SQLite's check found, as text.
type damagedError struct{ msg string }

func (e damagedError) Error() string        { return e.msg }
func (e damagedError) Is(target error) bool { return target == ErrDamaged }

// Damaged reports whether err says the store's file is corrupt or not a
// database (SQLITE_CORRUPT, SQLITE_NOTADB): no retry helps, the file must
// be restored or replaced.
func Damaged(err error) bool {
	if errors.Is(err, ErrDamaged) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return true
		}
	}
	return err != nil && (strings.Contains(err.Error(), "database disk image is malformed") || strings.Contains(err.Error(), "file is not a database"))
}

// damagedHint is the fix for a damaged store, empty for other errors.
func damagedHint(err error) string {
	if !Damaged(err) {
		return ""
	}
	return " (the file is damaged: restore it from a backup, or move it aside and let gpuwise serve start a new one)"
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
func (s *Store) Close() error {
	err := s.db.Close()
	s.lock.unlock()
	return err
}

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
