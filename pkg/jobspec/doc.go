// Package jobspec mirrors, offline, what the mirrored Kubernetes API server (pkg/version) does with a batch/v1 Job
// (or a CronJob's jobTemplate) on create: the defaulting of SetObjectDefaults_Job
// (pkg/apis/batch/v1 and the pod template defaults of pkg/apis/core/v1, shared by lint and
// diff), the image reference parsing that chooses the default imagePullPolicy, the selector
// generation of the Job strategy, the Job validation of
// pkg/apis/batch/validation/validation.go, the object metadata checks, a subset of the pod
// template checks, and the warnings the server returns on create.
//
// Every error is a *field.Error built exactly as the server builds it, so that its text reads
// `<path>: <type>: <value>: <detail>` word for word as `kubectl create` shows it. Each error is
// tagged with the ID of the lint rule it belongs to.
//
// The package has no client, no command glue and no printing: it takes typed values and returns
// values.
package jobspec
