package v1alpha1

import "testing"

func TestPruneEnabled(t *testing.T) {
	yes, no := true, false
	for _, tt := range []struct {
		prune *bool
		want  bool
	}{{nil, true}, {&yes, true}, {&no, false}} {
		s := RepositorySpec{Prune: tt.prune}
		if got := s.PruneEnabled(); got != tt.want {
			t.Errorf("PruneEnabled() with prune %v = %v, want %v", tt.prune, got, tt.want)
		}
	}
}
