package reconciler

import (
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/authn"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/olmops/olmops/catalog/oci"
	"github.com/olmops/olmops/catalogimport"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/planner"
	"github.com/olmops/olmops/reconciler/planning"
)

// setupPlanning registers the planning controller in the manager: it
// runs under the same lease, and reconciles the Planners of the same
// shard, as the Repository controller.
func setupPlanning(mgr manager.Manager, opts Options, pushes, reports <-chan event.GenericEvent) error {
	metrics, err := planning.NewMetrics(crmetrics.Registry)
	if err != nil {
		return err
	}
	imageDir := "" // oci's default: the user cache folder
	if opts.CacheDir != "" {
		imageDir = filepath.Join(opts.CacheDir, "images")
	}
	images, err := oci.New(oci.Options{CacheDir: imageDir})
	if err != nil {
		return err
	}
	r := &planning.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), CacheDir: opts.CacheDir, MaxFetchSize: opts.MaxFetchSize, HTTPClient: opts.HTTPClient,
		Images: images, Pinner: oci.NewPinner(images), Catalogs: gitsource.NewCatalogCache(0), Plans: planner.NewPlanCache(0),
		Version: opts.Version, Recorder: mgr.GetEventRecorder("olmops-planner"), Metrics: metrics, Reports: reports,
		NewImages: func(keychain authn.Keychain, mirrors []oci.Mirror) (planning.CatalogImages, error) {
			return oci.New(oci.Options{CacheDir: imageDir, Keychain: keychain, Mirrors: mirrors,
				MaxImageBytes: catalogimport.MaxImageBytes, MaxFiles: catalogimport.MaxFiles})
		},
	}
	return r.SetupWithManager(mgr, controller.Options{MaxConcurrentReconciles: opts.Concurrency, SkipNameValidation: &opts.SkipNameValidation}, pushes)
}
