package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

type inventoryOptions struct {
	sourceFlags
	output outputFlag
}

func newInventoryCmd(e *env) *cobra.Command {
	o := &inventoryOptions{}
	cmd := &cobra.Command{
		Use:   "inventory [--from FILE | --prometheus URL | --demo | --context CTX]",
		Short: "GPU nodes as they are: models, MIG and time-slicing layouts, device plugin and GFD, prices",
		Long: "inventory lists every GPU node at the end of the window (now, on a live cluster; read-only):\n" +
			"its GPU model and count, MIG strategy, configuration and current layout, time-slicing replicas,\n" +
			"whether the device plugin, GPU feature discovery and the GPU operator's other components run\n" +
			"there, capacity and instance type, and its price with where it came from (catalog and as-of\n" +
			"date, a --prices rule, or unpriced and why), then sums the cluster by GPU model and sharing\n" +
			"mode. A node labelled or sold as a GPU node that advertises no allocatable GPU is a finding.\n" +
			"Fields, statuses and checks: docs/inventory.md.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runInventory(cmd.Context(), o, e) },
	}
	o.sourceFlags.register(cmd.Flags())
	o.output.register(cmd.Flags(), render.Formats)
	return cmd
}

func runInventory(ctx context.Context, o *inventoryOptions, e *env) error {
	var p flagProblems
	req := app.DefaultInventoryRequest()
	req.Data = o.sourceFlags.data(&p)
	format := o.output.parse(&p)
	if err := p.check(req.Validate); err != nil {
		return err
	}
	res, err := e.app.Inventory(ctx, req)
	if err != nil {
		return err
	}
	if err := render.Inventory(e.Out, res.Inventory, format, e.renderOptions()); err != nil {
		return err
	}
	return partial(res.Partial)
}
