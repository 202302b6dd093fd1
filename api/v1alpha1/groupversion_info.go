package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is the API group of olmops' objects and files.
const Group = "olmops.io"

// SchemeGroupVersion is GroupVersion as a schema.GroupVersion, for the
// Scheme and clients.
var SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: "v1alpha1"}

var (
	// SchemeBuilder collects the functions that register the API's
	// objects: Repository, Planner and their lists.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme registers the API's objects with a Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(SchemeGroupVersion, &Repository{}, &RepositoryList{}, &Planner{}, &PlannerList{})
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	return nil
}
