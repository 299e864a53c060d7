package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/snapshot"
)

type collectOptions struct {
	kubeFlags
	output string
	window string
}

func newCollectCmd(s Streams) *cobra.Command {
	o := &collectOptions{}
	cmd := &cobra.Command{
		Use:   "collect -o FILE",
		Short: "Write the live cluster's GPU inventory to a snapshot file for offline analysis",
		Long: "collect reads nodes, pods, ReplicaSets and Jobs (read-only, paginated) and writes a snapshot\n" +
			"file (versioned, checksummed, compressed) that `report --from`, `audit --from` and the other\n" +
			"commands read. GPU usage is not collected here: holdings are marked unmeasured. Needs the\n" +
			"ClusterRole in deploy/rbac.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCollect(cmd.Context(), o, s, time.Now()) },
	}
	o.register(cmd.Flags())
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "snapshot file to write (e.g. snap.gwsnap)")
	cmd.Flags().StringVar(&o.window, "window", "24h", "window the snapshot covers, ending now")
	return cmd
}

func runCollect(ctx context.Context, o *collectOptions, s Streams, now time.Time) error {
	if o.output == "" {
		return usageErrorf("collect needs -o FILE")
	}
	window, err := parseWindow(o.window)
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	snap, err := liveSnapshot(ctx, &o.kubeFlags, now, window)
	if err != nil {
		return err
	}
	if err := snapshot.WriteFile(o.output, snap); err != nil {
		return inputError(err)
	}
	gpus := 0
	for _, n := range snap.Nodes {
		gpus += len(n.GPUs)
	}
	fmt.Fprintf(s.Err, "gpuwise: wrote %s: %d nodes (%d GPUs), %d pods, %d notes, from %s\n",
		o.output, len(snap.Nodes), gpus, len(snap.Pods), len(snap.Notes), snap.Source)
	return nil
}
