// Package kube holds the integration tier for the Kubernetes adapter:
// tests built with -tags integration that run against a real
// kube-apiserver, etcd, kube-scheduler, kube-controller-manager and KWOK
// started by hack/controlplane/up.sh (make integration-kube). The
// kubeconfig of the admin comes from $GPUWISE_TEST_KUBECONFIG.
package kube
