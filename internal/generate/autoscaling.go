package generate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// Scaler is one GPU service's horizontal autoscaler: a KEDA ScaledObject
// with a Prometheus trigger (keda/<namespace>/<name>.yaml) or, with HPA
// set on the call, an autoscaling/v2 HorizontalPodAutoscaler on an
// External metric (hpa/<namespace>/<name>.yaml).
type Scaler struct {
	// Workload is a Deployment or a StatefulSet.
	Workload Workload
	// Evidence is written as the file's header comment.
	Evidence string
	// MinReplicas is the floor (≥ 1: a GPU service keeps one warm),
	// MaxReplicas the ceiling; FallbackReplicas what KEDA holds while the
	// metric cannot be read (the fleet as it runs now).
	MinReplicas, MaxReplicas, FallbackReplicas int
	// Metric is the Prometheus metric name, Query the PromQL KEDA runs
	// (one value); Threshold the value per replica (PerReplica, KEDA
	// AverageValue) or the utilization the fleet is held at (Value).
	Metric     string
	Query      string
	Threshold  float64
	PerReplica bool
	// ScaleDownStabilizationSeconds is the HPA's scale-down window.
	ScaleDownStabilizationSeconds int
}

// ScalerOptions are what the scalers share.
type ScalerOptions struct {
	// PrometheusAddress is the serverAddress KEDA queries.
	PrometheusAddress string
	// HPA writes HorizontalPodAutoscalers instead of ScaledObjects.
	HPA bool
}

// Scalers returns one ScaledObject (or HPA) per input. Every problem in
// the input is returned in one error.
func Scalers(in []Scaler, o ScalerOptions) ([]File, error) {
	var p problems
	if !strings.HasPrefix(o.PrometheusAddress, "http://") && !strings.HasPrefix(o.PrometheusAddress, "https://") && !o.HPA {
		p.addf("Prometheus address %q: want an http:// or https:// URL that KEDA can reach", o.PrometheusAddress)
	}
	for _, s := range in {
		s.check(&p)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	files := make([]File, 0, len(in))
	for _, s := range in {
		f, err := s.file(o)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	sortFiles(files)
	return files, nil
}

func (s Scaler) check(p *problems) {
	s.Workload.check(p, "scaler for")
	what := "scaler for " + s.Workload.String()
	if s.Workload.Kind != Deployment && s.Workload.Kind != StatefulSet {
		p.addf("%s: only a Deployment or a StatefulSet scales horizontally", what)
	}
	if s.MinReplicas < 1 || s.MaxReplicas < s.MinReplicas {
		p.addf("%s: replicas %d to %d: want 1 ≤ min ≤ max", what, s.MinReplicas, s.MaxReplicas)
	}
	if s.FallbackReplicas < 0 {
		p.addf("%s: fallback replicas %d is negative", what, s.FallbackReplicas)
	}
	if s.Metric == "" || s.Query == "" {
		p.addf("%s: no metric or query", what)
	}
	if !(s.Threshold > 0) || math.IsInf(s.Threshold, 0) {
		p.addf("%s: threshold %v is not a positive number", what, s.Threshold)
	}
	if s.ScaleDownStabilizationSeconds < 0 || s.ScaleDownStabilizationSeconds > 3600 {
		p.addf("%s: scale-down stabilization %ds is outside 0 to 3600", what, s.ScaleDownStabilizationSeconds)
	}
	checkName(p, what+": name", s.Workload.Name, validation.IsDNS1123Subdomain)
}

func (s Scaler) path(o ScalerOptions) string {
	if o.HPA {
		return fmt.Sprintf("hpa/%s/%s.yaml", s.Workload.Namespace, s.Workload.Name)
	}
	return fmt.Sprintf("keda/%s/%s.yaml", s.Workload.Namespace, s.Workload.Name)
}

// The objects as written: local types keep the output free of the
// zero-valued fields the upstream types would add; the tests decode them
// strictly into the upstream KEDA and k8s.io/api types.
type (
	scaledObject struct {
		APIVersion string           `json:"apiVersion"`
		Kind       string           `json:"kind"`
		Metadata   objectMeta       `json:"metadata"`
		Spec       scaledObjectSpec `json:"spec"`
	}
	scaledObjectSpec struct {
		ScaleTargetRef  crossVersionRef `json:"scaleTargetRef"`
		PollingInterval int             `json:"pollingInterval"`
		CooldownPeriod  int             `json:"cooldownPeriod"`
		MinReplicaCount int             `json:"minReplicaCount"`
		MaxReplicaCount int             `json:"maxReplicaCount"`
		Fallback        *kedaFallback   `json:"fallback,omitempty"`
		Advanced        kedaAdvanced    `json:"advanced"`
		Triggers        []kedaTrigger   `json:"triggers"`
	}
	kedaFallback struct {
		FailureThreshold int `json:"failureThreshold"`
		Replicas         int `json:"replicas"`
	}
	kedaAdvanced struct {
		HPAConfig kedaHPAConfig `json:"horizontalPodAutoscalerConfig"`
	}
	kedaHPAConfig struct {
		Behavior hpaBehavior `json:"behavior"`
	}
	kedaTrigger struct {
		Type       string            `json:"type"`
		Name       string            `json:"name"`
		MetricType string            `json:"metricType"`
		Metadata   map[string]string `json:"metadata"`
	}
	hpaBehavior struct {
		ScaleUp   hpaRules `json:"scaleUp"`
		ScaleDown hpaRules `json:"scaleDown"`
	}
	hpaRules struct {
		StabilizationWindowSeconds int         `json:"stabilizationWindowSeconds"`
		Policies                   []hpaPolicy `json:"policies"`
	}
	hpaPolicy struct {
		Type          string `json:"type"`
		Value         int    `json:"value"`
		PeriodSeconds int    `json:"periodSeconds"`
	}
)

// behavior: scale up at once (a GPU pod is slow to start already), by
// whole pods; scale down one pod a minute after the stabilization window.
func (s Scaler) behavior() hpaBehavior {
	return hpaBehavior{
		ScaleUp:   hpaRules{Policies: []hpaPolicy{{Type: "Pods", Value: 4, PeriodSeconds: 60}}},
		ScaleDown: hpaRules{StabilizationWindowSeconds: s.ScaleDownStabilizationSeconds, Policies: []hpaPolicy{{Type: "Pods", Value: 1, PeriodSeconds: 60}}},
	}
}

func (s Scaler) metricType() string {
	if s.PerReplica {
		return "AverageValue"
	}
	return "Value"
}

func (s Scaler) file(o ScalerOptions) (File, error) {
	var obj any
	var how string
	if o.HPA {
		obj, how = s.hpa(), "needs an external-metrics adapter (prometheus-adapter externalRules) serving "+s.Metric+" as `"+s.Query+"`"
	} else {
		obj, how = s.scaledObject(o), "needs KEDA 2.x; it creates and owns the HPA keda-hpa-"+s.Workload.Name
	}
	body, err := yaml.Marshal(obj)
	if err != nil {
		return File{}, fmt.Errorf("scaler for %s: encoding: %w", s.Workload, err)
	}
	path := s.path(o)
	var b strings.Builder
	fmt.Fprintf(&b, "# gpuwise autoscaler for %s (suggested; review, load-test, then apply)\n", s.Workload)
	b.WriteString(commentLines(s.Evidence))
	fmt.Fprintf(&b, "# %s\n", how)
	fmt.Fprintf(&b, "# apply: kubectl apply -f %s\n", path)
	b.Write(body)
	return File{Path: path, Data: []byte(b.String())}, nil
}

func (s Scaler) scaledObject(o ScalerOptions) scaledObject {
	apiVersion, _ := s.Workload.Kind.apiVersion()
	so := scaledObject{APIVersion: "keda.sh/v1alpha1", Kind: "ScaledObject",
		Metadata: objectMeta{Name: s.Workload.Name, Namespace: s.Workload.Namespace, Labels: managedByLabels},
		Spec: scaledObjectSpec{
			ScaleTargetRef:  crossVersionRef{APIVersion: apiVersion, Kind: string(s.Workload.Kind), Name: s.Workload.Name},
			PollingInterval: 30, CooldownPeriod: max(300, s.ScaleDownStabilizationSeconds),
			MinReplicaCount: s.MinReplicas, MaxReplicaCount: s.MaxReplicas,
			Advanced: kedaAdvanced{HPAConfig: kedaHPAConfig{Behavior: s.behavior()}},
			Triggers: []kedaTrigger{{Type: "prometheus", Name: triggerName(s.Metric), MetricType: s.metricType(), Metadata: map[string]string{
				"serverAddress": o.PrometheusAddress, "query": s.Query, "threshold": strconv.FormatFloat(s.Threshold, 'g', -1, 64),
			}}},
		}}
	if s.FallbackReplicas > 0 {
		so.Spec.Fallback = &kedaFallback{FailureThreshold: 3, Replicas: s.FallbackReplicas}
	}
	return so
}

// triggerName is a DNS label from a metric name: "vllm-num-requests-waiting".
func triggerName(metric string) string {
	n := strings.ToLower(strings.NewReplacer(":", "-", "_", "-").Replace(metric))
	if len(n) > 63 {
		n = n[:63]
	}
	return strings.Trim(n, "-")
}
