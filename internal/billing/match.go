package billing

import "strings"

// resourceKey is a bill resource id in the form node keys take:
// "aws/i-…", "azure//subscriptions/…" (ASCII lower case),
// "gcp/PROJECT/ZONE/NAME"; "" for an id no node can match.
func resourceKey(provider, id string) string {
	id = strings.TrimSpace(id)
	if id == "" {
		return ""
	}
	lower := strings.ToLower(id)
	switch {
	case strings.HasPrefix(id, "i-"):
		return "aws/" + id
	case strings.HasPrefix(lower, "arn:") && strings.Contains(id, ":instance/i-"):
		_, inst, _ := strings.Cut(id, ":instance/")
		return "aws/" + inst
	case strings.HasPrefix(lower, "/subscriptions/"):
		if strings.Contains(lower, "/providers/microsoft.compute/virtualmachines/") ||
			strings.Contains(lower, "/providers/microsoft.compute/virtualmachinescalesets/") {
			return "azure/" + lower
		}
		return "" // disks, managed clusters, storage: not a node
	case strings.HasPrefix(lower, "ocid") && strings.Contains(lower, ".instance."):
		return "oci/" + id
	}
	if p := gcpPath(id); p != "" {
		return "gcp/" + p
	}
	_ = provider
	return ""
}

// gcpPath reads PROJECT/ZONE/NAME from a GCE instance's resource names:
// "//compute.googleapis.com/projects/P/zones/Z/instances/N",
// "projects/P/zones/Z/instances/N" or a self link.
func gcpPath(id string) string {
	i := strings.Index(id, "projects/")
	if i < 0 {
		return ""
	}
	parts := strings.Split(id[i:], "/")
	if len(parts) < 6 || parts[2] != "zones" || parts[4] != "instances" {
		return ""
	}
	return parts[1] + "/" + parts[3] + "/" + parts[5]
}

// nodeKeys are the bill keys a node's providerID can match: the instance
// itself and, for an Azure scale-set VM, the scale set (billed as one
// resource in FOCUS).
func nodeKeys(providerID string) (instance, group string) {
	scheme, rest, ok := strings.Cut(strings.TrimSpace(providerID), "://")
	if !ok {
		if strings.HasPrefix(providerID, "i-") {
			return "aws/" + providerID, ""
		}
		return "", ""
	}
	switch scheme {
	case "aws":
		last := rest[strings.LastIndexByte(rest, '/')+1:]
		if strings.HasPrefix(last, "i-") {
			return "aws/" + last, ""
		}
	case "azure":
		id := strings.ToLower(rest)
		if !strings.HasPrefix(id, "/subscriptions/") {
			return "", ""
		}
		instance = "azure/" + id
		if i := strings.Index(id, "/virtualmachinescalesets/"); i >= 0 {
			tail := id[i+len("/virtualmachinescalesets/"):]
			name, _, _ := strings.Cut(tail, "/")
			group = "azure/" + id[:i] + "/virtualmachinescalesets/" + name
		}
		return instance, group
	case "oci":
		if strings.HasPrefix(rest, "ocid") {
			return "oci/" + rest, ""
		}
	case "gce":
		parts := strings.Split(rest, "/")
		if len(parts) == 3 && parts[0] != "" && parts[1] != "" && parts[2] != "" {
			return "gcp/" + rest, ""
		}
	}
	return "", ""
}

// Matchable says whether a bill resource id is one a node's providerID
// can match: an instance, a VM or a scale set (not a disk, a volume, a
// managed cluster's fee).
func Matchable(resourceID string) bool { return resourceKey("", resourceID) != "" }
