package app

import (
	"context"
	"strings"
	"time"
)

// App runs the use cases. The zero value is not usable: create it with New.
type App struct {
	now func() time.Time
	// progress is told the phases of a use case; nil: nobody listens.
	progress Progress
	// workers bounds what the engines run at once (WithWorkers); 0: one
	// per core.
	workers int
}

// New returns an App reading the time from now (time.Now in a binary, a
// fixed clock in tests): a live snapshot's window and Prometheus' window
// end at now.
func New(now func() time.Time) *App { return &App{now: now} }

// WithWorkers returns a copy of a whose use cases run at most n things at
// once (the right-sizing beside the allocation, the ledger's packings);
// 0 is one per core, 1 runs everything in turn. Results are the same
// whatever n is.
func (a *App) WithWorkers(n int) *App {
	c := *a
	c.workers = max(n, 0)
	return &c
}

// Data is what every analysis reads: where the snapshot comes from, its
// window and the prices.
type Data struct {
	Source Source
	// Window is the analysis window; 0 means the source's default (see
	// Source). A snapshot file holds usage summaries for its own window
	// only, so with File a non-zero Window must equal it.
	Window time.Duration
	// Prices are the loaded prices (LoadPrices: the catalog, the user's
	// overrides, a cloud bill); nil means the embedded catalog alone.
	Prices *Prices
}

// problems gathers every problem of a request, so that one usage error
// lists them all.
type problems []string

func (p *problems) add(err error) {
	if err != nil {
		*p = append(*p, err.Error())
	}
}

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return usageErrorf("%s", strings.Join(p, "; "))
}

// validate lists the data selection's problems.
func (in Data) validate(p *problems) {
	in.Source.validate(p)
	p.add(validateWindow(in.Window, true))
}

func orBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}
