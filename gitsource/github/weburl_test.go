package github

import "testing"

func TestFileURL(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	for _, tt := range []struct{ base, want string }{
		{"", "https://github.com/acme/fleet/blob/" + commit + "/clusters/a/installplan.yaml"},
		{"https://ghe.example.com/api/v3/", "https://ghe.example.com/acme/fleet/blob/" + commit + "/clusters/a/installplan.yaml"},
		{"https://ghe.example.com", "https://ghe.example.com/acme/fleet/blob/" + commit + "/clusters/a/installplan.yaml"},
	} {
		f, err := New(t.Context(), Options{Owner: "acme", Repo: "fleet", Token: "t", BaseURL: tt.base})
		if err != nil {
			t.Fatal(err)
		}
		if got := f.FileURL(commit, "clusters/a/installplan.yaml"); got != tt.want {
			t.Errorf("BaseURL %q: FileURL = %q, want %q", tt.base, got, tt.want)
		}
	}
}
