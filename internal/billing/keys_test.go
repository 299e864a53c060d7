package billing

import "testing"

func TestNodeKeys(t *testing.T) {
	for _, c := range []struct{ pid, inst, group string }{
		{"aws:///us-east-1a/i-0abc", "aws/i-0abc", ""},
		{"aws:////i-0abc", "aws/i-0abc", ""},
		{"aws:///us-east-1a/fargate-10.0.0.1", "", ""},
		{"azure:///subscriptions/S/resourceGroups/mc_RG/providers/Microsoft.Compute/virtualMachines/VM1",
			"azure//subscriptions/s/resourcegroups/mc_rg/providers/microsoft.compute/virtualmachines/vm1", ""},
		{"gce://proj/us-central1-a/gke-node-1", "gcp/proj/us-central1-a/gke-node-1", ""},
		{"kind://docker/kind/kind-worker", "", ""},
	} {
		i, g := nodeKeys(c.pid)
		if i != c.inst || g != c.group {
			t.Errorf("%s: %q %q, want %q %q", c.pid, i, g, c.inst, c.group)
		}
	}
	for id, want := range map[string]string{
		"i-0abc": "aws/i-0abc", "arn:aws:ec2:us-east-1:1:instance/i-0abc": "aws/i-0abc",
		"//compute.googleapis.com/projects/proj/zones/us-central1-a/instances/gke-node-1": "gcp/proj/us-central1-a/gke-node-1",
		"/subscriptions/s/resourcegroups/rg/providers/microsoft.compute/disks/d":          "",
	} {
		if got := resourceKey("", id); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
}
