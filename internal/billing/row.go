package billing

import "time"

// Format is a billing export's schema.
type Format string

// Export schemas.
const (
	FOCUS Format = "focus"
	CUR2  Format = "cur2"
)

// Commitment statuses (FOCUS CommitmentDiscountStatus).
const (
	CommitmentUsed   = "Used"
	CommitmentUnused = "Unused"
)

// Row is one billing line in the model every reader produces.
type Row struct {
	Provider        string // "AWS", "Microsoft", "Google Cloud", "Oracle", …
	ChargeCategory  string // Usage, Purchase, Tax, Credit, Adjustment (canonical case)
	ServiceName     string
	ServiceCategory string // FOCUS ServiceCategory; "Compute" for CUR EC2 instance usage
	ResourceID      string
	ResourceType    string
	// InstanceType is the instance type when the export says it (CUR's
	// product_instance_type, the usage type's suffix "BoxUsage:p5.48xlarge",
	// FOCUS x_UsageType); empty otherwise.
	InstanceType string
	Region       string
	// Compute marks an instance's running-hours charge: what prices a
	// node. Disks, data transfer, requests are not.
	Compute bool
	// Spot marks interruptible pricing (FOCUS PricingCategory Dynamic, CUR
	// SpotUsage).
	Spot bool
	// CommitmentID and CommitmentStatus name the commitment (savings plan,
	// reservation) that covers the row, or whose unused part it is.
	CommitmentID     string
	CommitmentStatus string
	CommitmentType   string
	Start, End       time.Time // charge period [Start, End)
	BillingPeriod    time.Time // billing period start
	BilledCost       float64
	EffectiveCost    float64 // amortized
	ListCost         float64
	// SplitNamespace and SplitCost are a CUR 2.0 split cost allocation
	// row's namespace and its split cost (split_line_item_split_cost +
	// split_line_item_unused_cost); SplitParent is the EC2 instance.
	SplitNamespace, SplitParent string
	SplitCost                   float64
	Split                       bool
}
