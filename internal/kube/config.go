package kube

import (
	"errors"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Options say how to reach the API server.
type Options struct {
	// Kubeconfig is an explicit kubeconfig path; empty means $KUBECONFIG,
	// then ~/.kube/config, then the in-cluster service account.
	Kubeconfig string
	// Context overrides the kubeconfig's current context.
	Context string
	// Timeout bounds each API request.
	Timeout time.Duration
	// QPS and Burst bound the client's request rate; 0 means 50 and 100.
	QPS   float32
	Burst int
}

// ConfigError is a kubeconfig problem: missing, unreadable, invalid or
// naming an unknown context. Missing is true when the file does not exist
// or no configuration was found at all.
type ConfigError struct {
	Path    string
	Missing bool
	Err     error
}

func (e *ConfigError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("kubeconfig: %v", e.Err)
	}
	return fmt.Sprintf("kubeconfig %s: %v", e.Path, e.Err)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// Client is a connected, read-only view of a cluster.
type Client struct {
	Interface kubernetes.Interface
	// Dynamic reads the custom resources gpuwise models (Kueue's); nil
	// reads none of them.
	Dynamic dynamic.Interface
	// Progress, when set, is told every page Snapshot lists ("listing
	// pods", objects so far, the total when the server says how many
	// remain); it never changes the result.
	Progress func(phase string, done, total int64)
	// Server is the API server URL, for error messages.
	Server string
	// Source names the kubeconfig context or "in-cluster".
	Source string
	// rest is the connection's config, for clients that need other
	// settings (Watch: no per-request timeout on watches).
	rest *rest.Config
}

// Connect builds a client from o. It does not contact the server.
func Connect(o Options) (*Client, error) {
	cfg, source, err := restConfig(o)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst, cfg.Timeout = o.QPS, o.Burst, o.Timeout
	if cfg.QPS == 0 {
		cfg.QPS = 50
	}
	if cfg.Burst == 0 {
		cfg.Burst = 100
	}
	cfg.UserAgent = "gpuwise (read-only)"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, &ConfigError{Path: o.Kubeconfig, Err: err}
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, &ConfigError{Path: o.Kubeconfig, Err: err}
	}
	return &Client{Interface: cs, Dynamic: dc, Server: cfg.Host, Source: source, rest: cfg}, nil
}

func restConfig(o Options) (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if o.Kubeconfig != "" {
		if _, err := os.Stat(o.Kubeconfig); err != nil {
			return nil, "", &ConfigError{Path: o.Kubeconfig, Missing: errors.Is(err, os.ErrNotExist), Err: err}
		}
		rules.ExplicitPath = o.Kubeconfig
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.Context}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	raw, err := cc.RawConfig()
	if err != nil {
		return nil, "", &ConfigError{Path: configPath(o, rules), Err: err}
	}
	if len(raw.Contexts) == 0 && len(raw.Clusters) == 0 && o.Kubeconfig == "" && o.Context == "" {
		return inCluster()
	}
	if o.Context != "" && raw.Contexts[o.Context] == nil {
		return nil, "", &ConfigError{Path: configPath(o, rules), Missing: true,
			Err: fmt.Errorf("context %q not found (kubectl config get-contexts lists them)", o.Context)}
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", &ConfigError{Path: configPath(o, rules), Err: err}
	}
	ctx := o.Context
	if ctx == "" {
		ctx = raw.CurrentContext
	}
	return cfg, "kubeconfig context " + ctx, nil
}

func inCluster() (*rest.Config, string, error) {
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return nil, "", &ConfigError{Missing: true,
			Err: fmt.Errorf("none found (pass --kubeconfig, set KUBECONFIG or create ~/.kube/config; in-cluster: %w)", err)}
	}
	return cfg, "in-cluster", nil
}

func configPath(o Options, rules *clientcmd.ClientConfigLoadingRules) string {
	if o.Kubeconfig != "" {
		return o.Kubeconfig
	}
	if env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); env != "" {
		return env
	}
	return rules.GetDefaultFilename()
}
