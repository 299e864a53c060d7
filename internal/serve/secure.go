package serve

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
)

// ContentSecurityPolicy is sent with every answer. The dashboard is one
// page of same-origin script, style and JSON: nothing inline, nothing
// from elsewhere, never framed (docs/serve.md, "Threat model").
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// secured adds the security headers to every answer and, when the service
// listens on a loopback address only, refuses a Host it does not know: a
// page on another site can resolve its own name to 127.0.0.1 (DNS
// rebinding) and read a workstation's `serve --demo` through the victim's
// browser; the browser then sends that site's name as Host.
func (s *Service) secured(next http.Handler) http.Handler {
	hosts := s.allowedHosts()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		if hosts != nil && !hostAllowed(r.Host, hosts) {
			noteError(r, fmt.Sprintf("Host %q refused", r.Host))
			http.Error(w, fmt.Sprintf("Host %q is not one this service answers to: it listens on %s, a loopback address, and answers only to localhost, "+
				"loopback addresses and --allow-host names (a guard against DNS rebinding)", r.Host, s.opts.Listen), http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// allowedHosts are the Host names a loopback service answers to (nil: any,
// when it listens beyond loopback, where the Service and Ingress names are
// not known and a NetworkPolicy and auth guard it instead).
func (s *Service) allowedHosts() []string {
	host, _, err := net.SplitHostPort(s.opts.Listen)
	if err != nil || !loopback(host) {
		return nil
	}
	out := []string{"localhost", strings.ToLower(host)}
	for _, h := range s.opts.AllowedHosts {
		out = append(out, strings.ToLower(h))
	}
	return out
}

// loopback is a listen host that only this machine reaches.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hostAllowed reads the Host header (with or without a port): a loopback
// IP, localhost or *.localhost, or one of hosts.
func hostAllowed(hostport string, hosts []string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback() || slices.Contains(hosts, ip.String())
	}
	return host == "localhost" || strings.HasSuffix(host, ".localhost") || slices.Contains(hosts, host)
}
