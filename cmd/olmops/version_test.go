package main

import (
	"runtime/debug"
	"testing"
)

func TestBuildInfoFrom(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}
	tests := []struct {
		name, stamped string
		bi            *debug.BuildInfo
		want          buildInfo
	}{
		{"no build info", "dev", nil, buildInfo{Version: "dev"}},
		{"stamped by the Makefile wins", "v0.4.0", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, buildInfo{Version: "v0.4.0"}},
		{"go install of a release", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, buildInfo{Version: "v0.3.0"}},
		{"built in a checkout", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs}, buildInfo{Version: "dev", Commit: "abc123", Modified: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := buildInfoFrom(tt.stamped, tt.bi)
			got.GoVersion, got.Platform = "", ""
			if got != tt.want {
				t.Errorf("buildInfoFrom() = %+v, want %+v", got, tt.want)
			}
		})
	}
}
