package packing

import "testing"

func TestShapesValidate(t *testing.T) {
	t.Parallel()
	for s, wantOK := range map[Shapes]bool{CurrentShapes: true, RecommendedShapes: true, "smaller": false, "": false} {
		if err := s.Validate(); (err == nil) != wantOK {
			t.Errorf("Shapes(%q).Validate() = %v, want ok %v", s, err, wantOK)
		}
	}
}
