// Package subscription reads operator install intent from the desired-state
// repository: OLM classic Subscriptions (operators.coreos.com/v1alpha1) and
// OLM v1 ClusterExtensions (olm.operatorframework.io/v1), both mapped onto one
// Intent.
//
// Reading is strict: an unknown field, a value of the wrong type or an
// invalid enum value is an error that names the file and line, and every
// problem of a file is reported at once (errors.Join of *Error). Parse is
// pure and never panics; LoadDir reads a directory tree through io/fs.
package subscription
