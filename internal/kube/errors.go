package kube

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ErrorKind classifies an API failure for the caller's exit code.
type ErrorKind int

// Kinds of API failure.
const (
	// Unreachable: connection refused, DNS, TLS, timeout, or a 5xx.
	Unreachable ErrorKind = iota + 1
	// Unauthorized: credentials missing, invalid or expired (401).
	Unauthorized
	// Forbidden: RBAC denies the verb on the resource (403).
	Forbidden
	// Failed: any other answer from the server.
	Failed
)

// APIError is a failed request, naming the verb, the resource and the
// server so the message says what to fix.
type APIError struct {
	Kind     ErrorKind
	Verb     string // "list"
	Resource string // "pods", "replicasets.apps"
	Server   string
	Err      error
}

func (e *APIError) Error() string {
	switch e.Kind {
	case Unreachable:
		return fmt.Sprintf("cannot reach the Kubernetes API at %s (%s %s): %v", e.Server, e.Verb, e.Resource, e.Err)
	case Unauthorized:
		if e.Err != nil && execCredentialFailed(e.Err) {
			return fmt.Sprintf("the kubeconfig's exec credential plugin gave no credentials for %s %s at %s: %v; "+
				"run the plugin by hand (or log in to the cloud CLI again) and check its output", e.Verb, e.Resource, e.Server, e.Err)
		}
		return fmt.Sprintf("the Kubernetes API at %s rejected the credentials (401) on %s %s: "+
			"log in again or refresh the token/certificate in the kubeconfig", e.Server, e.Verb, e.Resource)
	case Forbidden:
		return fmt.Sprintf("RBAC forbids %q on %s at cluster scope (403) at %s: "+
			"bind the read-only ClusterRole in deploy/rbac/clusterrole.yaml (see docs/rbac.md): %v",
			e.Verb, e.Resource, e.Server, e.Err)
	}
	return fmt.Sprintf("%s %s at %s: %v", e.Verb, e.Resource, e.Server, e.Err)
}

func (e *APIError) Unwrap() error { return e.Err }

// classify wraps err from verb on resource in an *APIError.
func classify(err error, verb, resource, server string) error {
	if err == nil {
		return nil
	}
	return &APIError{Kind: kindOf(err), Verb: verb, Resource: resource, Server: server, Err: err}
}

func kindOf(err error) ErrorKind {
	switch {
	case apierrors.IsUnauthorized(err):
		return Unauthorized
	case apierrors.IsForbidden(err):
		return Forbidden
	case apierrors.IsServerTimeout(err), apierrors.IsTimeout(err), apierrors.IsServiceUnavailable(err),
		apierrors.IsInternalError(err), apierrors.IsTooManyRequests(err):
		return Unreachable
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if status.Status().Code >= 500 {
			return Unreachable
		}
		return Failed
	}
	if execCredentialFailed(err) {
		return Unauthorized // no credentials to send: access, not reachability (README: exit 5)
	}
	var urlErr *url.Error
	var netErr net.Error
	if errors.As(err, &urlErr) || errors.As(err, &netErr) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return Unreachable
	}
	return Failed
}

// execCredentialFailed reports whether err is client-go's failure to get
// credentials from a kubeconfig's exec plugin (the plugin missing,
// failing or answering nonsense): client-go wraps it, as text only, in
// the transport error of the request it could not send.
func execCredentialFailed(err error) bool {
	return strings.Contains(err.Error(), "getting credentials: ")
}
