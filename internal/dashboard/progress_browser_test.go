//go:build browser

package dashboard_test

import (
	"strconv"
	"strings"
	"testing"
)

// The progress view (issue 29.6) is api/v1/progress: every number on it
// equals the API's (checkFigures), the checklist has one row per tracked
// action with the API's status, the cards the API's counts, the
// utilization trend its band, and the red flags the API's (or says there
// are none), at laptop and phone widths.
func TestProgressViewIsTheAPIs(t *testing.T) {
	progressView(t, start(t), "")
}

// serve --demo --demo-applied: part of the plan carried out at hour 96,
// so the checklist shows applied actions with their realised dollars and
// range, each the API's.
func TestProgressViewShowsRealisedDollars(t *testing.T) {
	d, err := newDemo(nil, true)
	if err != nil {
		t.Fatal(err)
	}
	p := d.answer(t, "api/v1/progress").(map[string]any)
	measured := 0
	for _, a := range p["actions"].([]any) {
		if r, ok := a.(map[string]any)["realised"].(map[string]any); ok && r["status"] == "measured" {
			measured++
		}
	}
	if measured == 0 {
		t.Fatal("serve --demo-applied: no action's realised saving is measured")
	}
	progressView(t, d, "applied-")
	tb := newTab(t, 1440, 900, false)
	tb.open(t, d.url+"/?view=progress")
	// each measured action shows its realised $/month and its range: three
	// API figures in its row, each checked against the API by checkFigures
	shown := eval[int](t, tb, `[...document.querySelectorAll('table[data-table="actions"] tbody tr [data-path]')].filter(e => /\.realised\./.test(e.dataset.path || "")).length`)
	if shown < 3*measured {
		t.Errorf("%d realised figures on the checklist, want %d (3 for each of %d measured actions)", shown, 3*measured, measured)
	}
}

// progressView checks the progress view of the service d against
// api/v1/progress at every width; shot prefixes its screenshots.
func progressView(t *testing.T, d *demo, shot string) {
	t.Helper()
	const src = "api/v1/progress"
	p := d.answer(t, src).(map[string]any)
	actions := p["actions"].([]any)
	if len(actions) == 0 {
		t.Fatal("the demo's plan tracks no action")
	}
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			tb := newTab(t, size.width, size.height, size.mobile)
			d.failed.reset()
			tb.open(t, d.url+"/?view=progress")
			n := checkFigures(t, tb, d)
			// per action its predicted and latest predicted, and the cards
			if want := 2*len(actions) + 8; n < want {
				t.Errorf("%d figures shown, want at least %d", n, want)
			}
			for _, f := range eval[[]figure](t, tb, figuresJS) {
				if f.Src != src && !strings.HasPrefix(f.Src, "api/v1/history") {
					t.Errorf("figure %s %s is not from the progress API or the history", f.Src, f.Path)
				}
			}
			rows := eval[[]string](t, tb, `[...document.querySelectorAll('table[data-table="actions"] tbody tr')].map(r => r.dataset.index + " " + r.querySelector('[data-status]').dataset.status)`)
			if len(rows) != len(actions) {
				t.Fatalf("%d checklist rows, the API tracks %d actions", len(rows), len(actions))
			}
			for _, r := range rows {
				i, status, _ := strings.Cut(r, " ")
				k, err := strconv.Atoi(i)
				if err != nil || k >= len(actions) {
					t.Fatalf("row %q", r)
				}
				if want := actions[k].(map[string]any)["status"]; status != want {
					t.Errorf("action %v shows %s, the API says %v", actions[k].(map[string]any)["id"], status, want)
				}
			}
			cards := tb.text(t, "#progress-cards")
			counts := p["counts"].(map[string]any)
			for _, k := range []string{"applied", "partly", "pending", "rejected"} {
				if !strings.Contains(cards, strconv.Itoa(int(counts[k].(float64)))) {
					t.Errorf("cards %q lack the %s count %v", cards, k, counts[k])
				}
			}
			if n := eval[int](t, tb, `document.querySelectorAll('.chart svg rect.band').length`); n != 1 {
				t.Errorf("%d target bands on the utilization trend", n)
			}
			flags := p["red_flags"].([]any)
			shown := eval[int](t, tb, `document.querySelectorAll('table[data-table="red_flags"] tbody tr').length`)
			if shown != len(flags) || len(flags) == 0 && tb.text(t, "#no-red-flags") == "" {
				t.Errorf("%d red flags shown, the API has %d", shown, len(flags))
			}
			if w, vw := fits(t, tb); w > vw {
				t.Errorf("page is %d px wide in a %d px viewport", w, vw)
			}
			screenshot(t, tb, shot+size.name+"-progress")
			if p := tb.problems(); len(p) > 0 {
				t.Errorf("console: %v", p)
			}
			if f := d.failed.list(); len(f) > 0 {
				t.Errorf("failed requests: %v", f)
			}
		})
	}
}
