package gitsource

import "github.com/olmops/olmops/api/v1alpha1"

// ForgeFunc gives the forge a commit's olmops.yaml (cfg) configures, for
// a caller that learns the configuration only once it has read the
// commit: the planner, a catalog import's proposal, the controller's
// statuses. Each says what a nil Forge returned means to it.
type ForgeFunc func(cfg *v1alpha1.RepositoryConfig) (Forge, error)
