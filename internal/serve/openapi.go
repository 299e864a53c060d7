package serve

import (
	"encoding/json"
	"net/http"
	"strings"
)

// OpenAPI returns the OpenAPI 3.1 document of every route, built from the
// same table the server routes with (so a route cannot be served without
// being documented).
func OpenAPI(version string) map[string]any {
	paths := map[string]any{}
	for _, rt := range routes() {
		paths[rt.Path] = map[string]any{strings.ToLower(rt.Method): operation(rt)}
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "gpuwise serve", "version": version,
			"description": "Read-only API of `gpuwise serve`: the CLI's JSON for the rolling window, the history, metrics and probes. " +
				"Answers carry X-Gpuwise-Partial when some data could not be read. Errors are {\"error\", \"kind\"}."},
		"paths": paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"bearer": map[string]any{"type": "http", "scheme": "bearer"},
				"basic":  map[string]any{"type": "http", "scheme": "basic"},
			},
			"schemas": map[string]any{"Error": map[string]any{"type": "object", "required": []string{"error", "kind"},
				"properties": map[string]any{"error": map[string]any{"type": "string"},
					"kind": map[string]any{"type": "string", "enum": []string{"usage", "input", "unreachable", "denied", "output", "internal", "not ready", "unauthorized"}}}}},
		},
	}
}

func operation(rt route) map[string]any {
	op := map[string]any{"summary": rt.Summary, "operationId": operationID(rt.Path)}
	var params []any
	for _, p := range rt.Params {
		schema := map[string]any{"type": "string"}
		if len(p.Enum) > 0 {
			schema["enum"] = p.Enum
		}
		if p.Default != "" {
			schema["default"] = p.Default
		}
		pm := map[string]any{"name": p.Name, "in": "query", "required": p.Required, "description": p.Description, "schema": schema}
		if p.Example != "" {
			pm["example"] = p.Example
		}
		params = append(params, pm)
	}
	if params != nil {
		op["parameters"] = params
	}
	content := map[string]any{}
	for _, t := range rt.Types {
		content[t] = map[string]any{}
	}
	errContent := map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}
	op["responses"] = map[string]any{
		"200": map[string]any{"description": "the answer", "content": content},
		"400": map[string]any{"description": "a parameter is invalid (every problem listed)", "content": errContent},
		"401": map[string]any{"description": "credentials missing or wrong (when auth is on)", "content": errContent},
		"503": map[string]any{"description": "no result yet", "content": errContent},
	}
	if rt.Public {
		op["security"] = []any{}
	} else {
		op["security"] = []any{map[string]any{"bearer": []any{}}, map[string]any{"basic": []any{}}}
	}
	return op
}

func operationID(path string) string {
	id := strings.Trim(strings.NewReplacer("/api/v1/", "", "/", "_", ".", "_").Replace(path), "_")
	if id == "" {
		return "dashboard"
	}
	return id
}

func openapiHandler(s *Service, _ route) http.HandlerFunc {
	b, _ := json.MarshalIndent(OpenAPI(s.opts.Version), "", "  ")
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(append(b, '\n'))
	}
}
