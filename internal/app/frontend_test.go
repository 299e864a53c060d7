package app

import (
	"reflect"
	"strings"
	"testing"
)

// TestFrontEndDefaultsAreTheRequests: what the CLI shows as a flag's
// default (frontend.go) is what the use case's default request carries,
// so that a flag left alone and a request left at its default are the same
// request.
func TestFrontEndDefaultsAreTheRequests(t *testing.T) {
	t.Parallel()
	rep := DefaultReportRequest()
	if !reflect.DeepEqual(rep.Cost, DefaultCostOptions()) || !reflect.DeepEqual(rep.Report, DefaultReportOptions()) {
		t.Errorf("report request defaults %+v %+v, front-end defaults %+v %+v", rep.Cost, rep.Report, DefaultCostOptions(), DefaultReportOptions())
	}
	adv := DefaultAdviseRequest()
	if adv.EngineerUSDPerHour != DefaultEngineerUSDPerHour || adv.Region.MaxPaybackMonths != DefaultRegionMaxPaybackMonths {
		t.Errorf("advise request: rate %v, region payback %v; front-end defaults %v, %v", adv.EngineerUSDPerHour, adv.Region.MaxPaybackMonths, DefaultEngineerUSDPerHour, DefaultRegionMaxPaybackMonths)
	}
	if pl := DefaultPlanRequest(); pl.Shapes != DefaultShapes {
		t.Errorf("plan request shapes %q, front-end default %q", pl.Shapes, DefaultShapes)
	}
	if _, err := ParseSeverity("severe"); err == nil || !strings.Contains(err.Error(), `"severe"`) {
		t.Errorf("ParseSeverity(severe) = %v, want an error naming the value", err)
	}
	if s, err := ParseSeverity("WARNING"); err != nil || s.String() != "warning" {
		t.Errorf("ParseSeverity(WARNING) = %v, %v; want warning", s, err)
	}
}
