package serve

import (
	"compress/gzip"
	"net/http"
	"strings"
	"sync"
)

// gzipPool reuses writers: one compressor holds about 800 KB.
var gzipPool = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed) // BestSpeed is a valid level
	return w
}}

// compressed gzips answers for clients that accept it (the dashboard's
// history answers shrink about eightfold); /metrics compresses itself.
func compressed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept-Encoding")
		if !acceptsGzip(r.Header.Get("Accept-Encoding")) || r.Method == http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		gz := gzipPool.Get().(*gzip.Writer)
		defer gzipPool.Put(gz)
		gw := &gzipWriter{ResponseWriter: w, gz: gz}
		defer gw.finish()
		next.ServeHTTP(gw, r)
	})
}

func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") && strings.TrimSpace(strings.ReplaceAll(q, " ", "")) != "q=0" {
			return true
		}
	}
	return false
}

// gzipWriter compresses the body once the handler has set its status:
// errors and empty answers (304, 204) go out as they are.
type gzipWriter struct {
	http.ResponseWriter
	gz      *gzip.Writer
	decided bool
	on      bool
}

func (g *gzipWriter) WriteHeader(code int) {
	if !g.decided {
		g.decided = true
		h := g.Header()
		g.on = code == http.StatusOK && h.Get("Content-Encoding") == ""
		if g.on {
			h.Del("Content-Length")
			h.Set("Content-Encoding", "gzip")
			g.gz.Reset(g.ResponseWriter)
		}
	}
	g.ResponseWriter.WriteHeader(code)
}

func (g *gzipWriter) Write(b []byte) (int, error) {
	if !g.decided {
		if g.Header().Get("Content-Type") == "" {
			g.Header().Set("Content-Type", http.DetectContentType(b))
		}
		g.WriteHeader(http.StatusOK)
	}
	if g.on {
		return g.gz.Write(b)
	}
	return g.ResponseWriter.Write(b)
}

func (g *gzipWriter) finish() {
	if g.on {
		g.gz.Close()
	}
}
