package generate

import (
	"math"
	"strconv"
)

// The autoscaling/v2 HorizontalPodAutoscaler as written (an External
// metric: the Prometheus signal through an external-metrics adapter).
type (
	hpaObject struct {
		APIVersion string     `json:"apiVersion"`
		Kind       string     `json:"kind"`
		Metadata   objectMeta `json:"metadata"`
		Spec       hpaSpec    `json:"spec"`
	}
	hpaSpec struct {
		ScaleTargetRef crossVersionRef `json:"scaleTargetRef"`
		MinReplicas    int             `json:"minReplicas"`
		MaxReplicas    int             `json:"maxReplicas"`
		Metrics        []hpaMetric     `json:"metrics"`
		Behavior       hpaBehavior     `json:"behavior"`
	}
	hpaMetric struct {
		Type     string            `json:"type"`
		External hpaExternalSource `json:"external"`
	}
	hpaExternalSource struct {
		Metric hpaMetricID     `json:"metric"`
		Target hpaMetricTarget `json:"target"`
	}
	hpaMetricID struct {
		Name     string        `json:"name"`
		Selector labelSelector `json:"selector"`
	}
	labelSelector struct {
		MatchLabels map[string]string `json:"matchLabels"`
	}
	hpaMetricTarget struct {
		Type         string `json:"type"`
		Value        string `json:"value,omitempty"`
		AverageValue string `json:"averageValue,omitempty"`
	}
)

func (s Scaler) hpa() hpaObject {
	apiVersion, _ := s.Workload.Kind.apiVersion()
	target := hpaMetricTarget{Type: s.metricType()}
	if s.PerReplica {
		target.AverageValue = quantity(s.Threshold)
	} else {
		target.Value = quantity(s.Threshold)
	}
	return hpaObject{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler",
		Metadata: objectMeta{Name: s.Workload.Name, Namespace: s.Workload.Namespace, Labels: managedByLabels},
		Spec: hpaSpec{
			ScaleTargetRef: crossVersionRef{APIVersion: apiVersion, Kind: string(s.Workload.Kind), Name: s.Workload.Name},
			MinReplicas:    s.MinReplicas, MaxReplicas: s.MaxReplicas,
			Metrics: []hpaMetric{{Type: "External", External: hpaExternalSource{
				Metric: hpaMetricID{Name: triggerName(s.Metric), Selector: labelSelector{MatchLabels: map[string]string{
					"namespace": s.Workload.Namespace, "gpuwise.io/workload": s.Workload.Name}}},
				Target: target,
			}}},
			Behavior: s.behavior(),
		}}
}

// quantity writes a threshold as a Kubernetes quantity: whole numbers as
// they are, fractions in milli-units ("650m").
func quantity(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatInt(int64(math.Round(v*1000)), 10) + "m"
}
