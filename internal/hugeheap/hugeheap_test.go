package hugeheap

import "testing"

func TestDisabled(t *testing.T) {
	for _, tc := range []struct {
		godebug string
		want    bool
	}{
		{"", false},
		{"disablethp=1", true},
		{"disablethp=0", false},
		{"gctrace=1, disablethp=1", true},
		{"disablethp=1,disablethp=0", false},
		{"xdisablethp=1", false},
		{"disablethp=10", false},
	} {
		if got := disabled(tc.godebug); got != tc.want {
			t.Errorf("disabled(%q) = %v, want %v", tc.godebug, got, tc.want)
		}
	}
}
