{{/* Names and labels shared by every object. */}}
{{- define "sparkdx.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "sparkdx.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "sparkdx.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "sparkdx.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "sparkdx.selector" -}}
app.kubernetes.io/name: {{ include "sparkdx.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "sparkdx.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "sparkdx.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "sparkdx.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Standard OpenTelemetry SDK variables, read by sparkdx serve (otlp.FromEnv). */}}
{{- define "sparkdx.otelEnv" -}}
{{- $o := .Values.monitoring.openTelemetry -}}
{{- if $o.enabled }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ required "monitoring.openTelemetry.endpoint is required when enabled" $o.endpoint | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ $o.protocol | quote }}
- name: OTEL_TRACES_SAMPLER
  value: parentbased_traceidratio
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ $o.samplingRatio | quote }}
- name: SPARKDX_OTLP_TASK_SAMPLING_RATIO
  value: {{ $o.taskSamplingRatio | quote }}
- name: OTEL_SERVICE_NAME
  value: {{ $o.serviceName | quote }}
{{- end }}
{{- end -}}

{{/* The Secret holding the agent's bearer token: the one given, or the chart's. */}}
{{- define "sparkdx.agentTokenSecret" -}}
{{- default (printf "%s-agent-token" (include "sparkdx.fullname" .)) .Values.agent.auth.existingSecret -}}
{{- end -}}

{{/* The Secret holding serve's bearer token (server.auth). */}}
{{- define "sparkdx.serverTokenSecret" -}}
{{- .Values.server.auth.existingSecret | default (printf "%s-server-token" (include "sparkdx.fullname" .)) -}}
{{- end -}}

{{/* Where the agents push OTLP: the collector when enabled, else the
chart's serve (one instance); "" for none. */}}
{{- define "sparkdx.agentOTLPEndpoint" -}}
{{- $o := .Values.monitoring.openTelemetry -}}
{{- if $o.enabled -}}
{{- $o.endpoint -}}
{{- else if and .Values.agent.otlpToServer .Values.server.enabled (eq (int .Values.server.replicas) 1) -}}
{{- printf "http://%s-server.%s.svc:%v" (include "sparkdx.fullname" .) .Release.Namespace .Values.server.port -}}
{{- end -}}
{{- end -}}
