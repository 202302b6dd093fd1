// Package config owns the kustomize bases that install olmops in a cluster:
// CRDs, RBAC, the manager Deployment, sharding and samples. Its Go files are
// tests only: each base builds, lands in olmops-system and holds what the
// controller needs.
package config
