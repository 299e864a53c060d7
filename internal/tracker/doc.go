// Package tracker keeps the savings plan between runs and proves what it
// saved: a pinned baseline (day 0: the window's spend, utilization and
// unused GPU dollars, the ledger and its actions), the plan's actions under
// stable ids (from the ledger action's key, lever + kind + target, never
// its position), what the cluster shows of each (applied, partly applied
// with n of m targets, pending, or rejected or applied by a user's mark;
// read from the snapshot's nodes, pods and hourly series and, where the
// source listed them, its controls: autoscalers, Karpenter NodePools and
// admission policies),
// why an action no longer proposed left the plan (done, obsolete,
// superseded), and the dollars each applied action realised: $/month
// before against after on equal windows of hourly cost, with a range from
// the hour-to-hour noise, the demand change named apart, and a total that
// reconciles with the spend to the cent; and the seeds' red flags watched
// after each applied action, each blaming it (docs/progress.md).
//
// It is an engine: Observe and Realise take values (the ledger, the
// snapshot, hourly cost series the use case reads from the history) and
// change only the Plan they are called on; the use case (internal/app)
// persists the Plan in the history store. Composition exception: it reads
// the savings ledger's actions (internal/ledger and its vocabulary in
// internal/ledger/lever), listed in internal/archtest's engineExceptions.
//
// Pure engine: it imports cluster, ledger, ledger/lever and the standard
// library only; never adapters, the store, output layers, use cases,
// front ends or the clock (times come from the observations).
package tracker
