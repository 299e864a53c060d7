package pricing

import "strings"

// The catalog names Azure regions by slug ("us-east", "europe-west") while
// Kubernetes nodes carry ARM names ("eastus", "westeurope"). The ARM name is
// derived from each slug in the data, so new catalog regions map themselves.

// azureRotatedGeos are the slug prefixes that ARM names put last:
// "us-east-2" is "eastus2", "europe-west" is "westeurope".
var azureRotatedGeos = map[string]bool{"us": true, "europe": true, "asia": true}

// azureARMName derives the ARM region name from a catalog slug.
func azureARMName(slug string) string {
	s := slug
	if rest, ok := strings.CutPrefix(s, "asia-pacific"); ok {
		s = "asia" + rest
	}
	if rest, ok := strings.CutPrefix(s, "united-kingdom"); ok {
		s = "uk" + rest
	}
	parts := strings.Split(s, "-")
	if len(parts) < 2 || !azureRotatedGeos[parts[0]] {
		return strings.Join(parts, "")
	}
	suffix := ""
	if last := parts[len(parts)-1]; isDigits(last) {
		suffix, parts = last, parts[:len(parts)-1]
	}
	rotated := append(parts[1:len(parts):len(parts)], parts[0])
	return strings.Join(rotated, "") + suffix
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// regionIndex maps the region names nodes use to the catalog's names.
type regionIndex struct {
	azureARM map[string]string // ARM name -> slug
}

func newRegionIndex(entries []Entry) regionIndex {
	ix := regionIndex{azureARM: map[string]string{}}
	for _, e := range entries {
		if normalizeName(e.Cloud) == "azure" {
			slug := normalizeName(e.Region)
			ix.azureARM[azureARMName(slug)] = slug
		}
	}
	return ix
}

// canonical returns the catalog's name for a region of a cloud. Azure ARM
// and display names ("East US") map to slugs; anything else is lowercased.
func (ix regionIndex) canonical(cloud, region string) string {
	r := normalizeName(region)
	if normalizeName(cloud) != "azure" {
		return r
	}
	if slug, ok := ix.azureARM[strings.ReplaceAll(r, " ", "")]; ok {
		return slug
	}
	return r
}

// normalizeName trims and lowercases a cloud, region or instance type name.
func normalizeName(s string) string {
	return strings.ToLower(strings.TrimSpace(s))
}
