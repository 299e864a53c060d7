{{- define "gpuwise.name" -}}gpuwise{{- end -}}

{{- define "gpuwise.fullname" -}}
{{- if contains "gpuwise" .Release.Name -}}{{ .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else -}}{{ printf "%s-gpuwise" .Release.Name | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- end -}}

{{- define "gpuwise.labels" -}}
app.kubernetes.io/name: gpuwise
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "gpuwise.selector" -}}
app.kubernetes.io/name: gpuwise
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "gpuwise.serviceAccount" -}}
{{- if .Values.serviceAccount.create -}}{{ default (include "gpuwise.fullname" .) .Values.serviceAccount.name }}
{{- else -}}{{ default "default" .Values.serviceAccount.name }}{{- end -}}
{{- end -}}

{{- define "gpuwise.scheme" -}}{{ if .Values.tls.secretName }}HTTPS{{ else }}HTTP{{ end }}{{- end -}}

{{- /* The Secret holding the bearer token the service requires: the one
auth.bearerTokenSecret names, else (auth on, no basic-auth Secret) the one
the chart generates; empty when auth is off or basic auth is used. */ -}}
{{- define "gpuwise.authTokenSecret" -}}
{{- if .Values.auth.bearerTokenSecret.name -}}{{ .Values.auth.bearerTokenSecret.name }}
{{- else if and .Values.auth.enabled (not .Values.auth.basicAuthSecret.name) -}}{{ include "gpuwise.fullname" . }}-auth
{{- end -}}
{{- end -}}
