package generate

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/quota"
)

// QuotaName is the ResourceQuota gpuwise writes in each namespace.
const QuotaName = "gpuwise-gpu-quota"

// Quotas writes one ResourceQuota per namespace at
// "quota/<namespace>.yaml": a requests.<resource> counter per GPU resource
// (requests., because ResourceQuota counts extended resources only under
// that prefix), each explained in the header with its percentile, peak and
// the $/month it caps. Each is re-read strictly into the upstream
// ResourceQuota type.
func Quotas(r *quota.Result) ([]File, error) {
	var p problems
	for _, ns := range r.Namespaces {
		checkName(&p, "ResourceQuota namespace", ns.Namespace, validation.IsDNS1123Label)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	files := make([]File, 0, len(r.Namespaces))
	for _, ns := range r.Namespaces {
		f, err := quotaFile(r, ns)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	sortFiles(files)
	return files, nil
}

type quotaObject struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Metadata   quotaMeta `json:"metadata"`
	Spec       quotaSpec `json:"spec"`
}

type quotaMeta struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type quotaSpec struct {
	Hard map[string]string `json:"hard"`
}

func quotaFile(r *quota.Result, ns quota.Namespace) (File, error) {
	obj := quotaObject{APIVersion: "v1", Kind: "ResourceQuota",
		Metadata: quotaMeta{Name: QuotaName, Namespace: ns.Namespace, Labels: map[string]string{"app.kubernetes.io/managed-by": "gpuwise"}},
		Spec:     quotaSpec{Hard: map[string]string{}}}
	var head bytes.Buffer
	fmt.Fprintf(&head, "# gpuwise GPU quota for namespace %s: p%g of the GPU units its pods requested at once over %s, +%g%% headroom.\n",
		ns.Namespace, r.Percentile*100, windowText(r.Window), r.Headroom*100)
	var total float64
	priced := true
	for _, q := range ns.Resources {
		obj.Spec.Hard["requests."+q.Name] = strconv.FormatInt(q.Hard, 10)
		fmt.Fprintf(&head, "#   %s: p%g %.2f, peak %d, %.1f unit-hours -> hard %d; %s\n",
			q.Name, r.Percentile*100, q.Percentile, q.Peak, q.UnitHours, q.Hard, capText(q))
		if q.MonthlyCapUSD == nil {
			priced = false
		} else {
			total += *q.MonthlyCapUSD
		}
	}
	if priced {
		obj.Metadata.Annotations = map[string]string{"gpuwise.io/monthly-cap-usd": strconv.FormatFloat(total, 'f', 2, 64)}
	}
	body, err := yaml.Marshal(obj)
	if err != nil {
		return File{}, err
	}
	if err := validateQuota(body); err != nil {
		return File{}, fmt.Errorf("ResourceQuota %s/%s: generated object is invalid (a gpuwise bug): %w", ns.Namespace, QuotaName, err)
	}
	return File{Path: "quota/" + ns.Namespace + ".yaml", Data: append(head.Bytes(), body...)}, nil
}

// windowText is "7d" for whole days, a Go duration otherwise.
func windowText(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}

func capText(q quota.Resource) string {
	if q.MonthlyCapUSD == nil {
		return "unpriced: the $ it caps is unknown"
	}
	return fmt.Sprintf("caps $%.2f/month at $%.4f per unit-hour (the namespace's mean in the window)", *q.MonthlyCapUSD, *q.USDPerUnitHour)
}

// validateQuota decodes the quota strictly and checks each hard key is a
// requests.<qualified name> with a whole quantity.
func validateQuota(body []byte) error {
	var rq corev1.ResourceQuota
	if err := yaml.UnmarshalStrict(body, &rq); err != nil {
		return err
	}
	for name, q := range rq.Spec.Hard {
		if errs := validation.IsQualifiedName(string(name)); len(errs) > 0 {
			return fmt.Errorf("hard %s: %v", name, errs)
		}
		if q.Cmp(*resource.NewQuantity(q.Value(), resource.DecimalSI)) != 0 || q.Sign() < 0 {
			return fmt.Errorf("hard %s: %s is not a whole number", name, q.String())
		}
	}
	return nil
}
