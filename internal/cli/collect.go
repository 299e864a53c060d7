package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/app"
)

type collectOptions struct {
	kubeFlags
	output string
	window string
}

func newCollectCmd(e *env) *cobra.Command {
	o := &collectOptions{}
	cmd := &cobra.Command{
		Use:   "collect -o FILE",
		Short: "Write the live cluster's GPU inventory to a snapshot file for offline analysis",
		Long: "collect reads nodes, pods, ReplicaSets and Jobs (read-only, paginated) and writes a snapshot\n" +
			"file (versioned, checksummed, compressed) that `report --from`, `audit --from` and the other\n" +
			"commands read. GPU usage is not collected here: holdings are marked unmeasured. Needs the\n" +
			"ClusterRole in deploy/rbac.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCollect(cmd.Context(), o, e) },
	}
	o.register(cmd.Flags())
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "snapshot file to write (e.g. snap.gwsnap)")
	cmd.Flags().StringVar(&o.window, "window", app.FormatWindow(app.DefaultCollectRequest().Window), "window the snapshot covers, ending now")
	return cmd
}

func runCollect(ctx context.Context, o *collectOptions, e *env) error {
	var p flagProblems
	req := app.CollectRequest{Kube: o.KubeSource, Output: o.output, Window: parseWindow(&p, o.window)}
	if err := p.check(req.Validate); err != nil {
		return err
	}
	res, err := e.app.Collect(ctx, req)
	if err != nil {
		return err
	}
	snap, gpus := res.Snapshot, 0
	for _, n := range snap.Nodes {
		gpus += len(n.GPUs)
	}
	fmt.Fprintf(e.Err, "%s: wrote %s: %d nodes (%d GPUs), %d pods, %d notes, from %s\n", e.name(),
		o.output, len(snap.Nodes), gpus, len(snap.Pods), len(snap.Notes), snap.Source)
	return nil
}
