{{/* The serve pod's spec, for the Deployment (one instance) and the
StatefulSet (several sharing the event logs). Takes (dict "root" $). */}}
{{- define "sparkdx.serverPodSpec" -}}
{{- $s := .root.Values.server -}}
{{- $n := int $s.replicas -}}
{{- $sharded := gt $n 1 -}}
serviceAccountName: {{ include "sparkdx.serviceAccountName" .root }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  runAsNonRoot: true
  runAsUser: 65532
  runAsGroup: 65532
  fsGroup: 65532
  seccompProfile:
    type: RuntimeDefault
containers:
  - name: server
    image: {{ include "sparkdx.image" .root | quote }}
    imagePullPolicy: {{ .root.Values.image.pullPolicy }}
    args:
      - serve
      - --event-logs={{ $s.eventLogs }}
      - --listen=0.0.0.0:{{ $s.port }}
      - --data=/data
      - --metrics-window={{ $s.metricsWindow }}
      - --metrics-max-finished={{ $s.metricsMaxFinished }}
      {{- $svc := printf "%s-server" (include "sparkdx.fullname" .root) }}
      {{- $ns := .root.Release.Namespace }}
      - --allowed-hosts={{ join "," (concat (list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.cluster.local" $svc $ns)) $s.allowedHosts) }}
      {{- with $s.appMaxAge }}
      - --app-max-age={{ . }}
      {{- end }}
      {{- with $s.maxFinishedApps }}
      - --max-finished-apps={{ . }}
      {{- end }}
      {{- if $s.auth.enabled }}
      - --auth-token-file=/etc/sparkdx/server-token/token
      {{- end }}
      {{- with $s.delta }}
      - --delta={{ . }}
      - --delta-flush-interval={{ $s.deltaFlushInterval }}
      {{- end }}
      {{- with $s.sinks.graphitePort }}
      - --graphite-listen=0.0.0.0:{{ . }}
      {{- end }}
      {{- with $s.sinks.statsdPort }}
      - --statsd-listen=0.0.0.0:{{ . }}
      {{- end }}
      {{- if $sharded }}
      # The pod's ordinal is its shard; every pod knows the others by their
      # stable names and answers for them (the Service in front spreads
      # requests over pods that clients cannot reach one by one).
      - --shard=$(POD_NAME)/{{ $n }}
      - --peers={{ include "sparkdx.serverPeers" .root }}
      - --peer-proxy
      {{- end }}
      {{- range $s.extraArgs }}
      - {{ . | quote }}
      {{- end }}
    env:
      {{- if $sharded }}
      - name: POD_NAME
        valueFrom:
          fieldRef:
            fieldPath: metadata.name
      {{- end }}
      {{- include "sparkdx.otelEnv" .root | nindent 6 }}
      {{- with $s.env }}
      {{- toYaml . | nindent 6 }}
      {{- end }}
    ports:
      - name: http
        containerPort: {{ $s.port }}
        protocol: TCP
      {{- with $s.sinks.graphitePort }}
      - name: graphite
        containerPort: {{ . }}
        protocol: TCP
      {{- end }}
      {{- with $s.sinks.statsdPort }}
      - name: statsd
        containerPort: {{ . }}
        protocol: UDP
      {{- end }}
    readinessProbe:
      httpGet:
        path: /api/v1/version
        port: http
    livenessProbe:
      tcpSocket:
        port: http
      initialDelaySeconds: 10
    securityContext:
      allowPrivilegeEscalation: false
      readOnlyRootFilesystem: true
      capabilities:
        drop: [ALL]
    resources:
      {{- toYaml $s.resources | nindent 6 }}
    volumeMounts:
      - name: data
        mountPath: /data
      - name: tmp
        mountPath: /tmp
      {{- if $s.eventLogVolume }}
      - name: event-logs
        mountPath: {{ $s.eventLogs }}
        readOnly: true
      {{- end }}
      {{- if $s.auth.enabled }}
      - name: server-token
        mountPath: /etc/sparkdx/server-token
        readOnly: true
      {{- end }}
      {{- if and $s.delta $s.deltaVolume }}
      - name: delta
        mountPath: {{ $s.delta }}
      {{- end }}
volumes:
  - name: tmp
    emptyDir: {}
  {{- if not (and $sharded $s.persistence.enabled) }}
  - name: data
    {{- if $s.persistence.enabled }}
    persistentVolumeClaim:
      claimName: {{ $s.persistence.existingClaim | default (printf "%s-data" (include "sparkdx.fullname" .root)) }}
    {{- else }}
    emptyDir: {}
    {{- end }}
  {{- end }}
  {{- with $s.eventLogVolume }}
  - name: event-logs
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- if $s.auth.enabled }}
  - name: server-token
    secret:
      secretName: {{ include "sparkdx.serverTokenSecret" .root }}
      defaultMode: 0400
  {{- end }}
  {{- if and $s.delta $s.deltaVolume }}
  - name: delta
    {{- toYaml $s.deltaVolume | nindent 4 }}
  {{- end }}
{{- with $s.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $s.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $s.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Every serve pod's URL in ordinal order, through the headless Service. */}}
{{- define "sparkdx.serverPeers" -}}
{{- $full := include "sparkdx.fullname" . -}}
{{- $urls := list -}}
{{- range $i := until (int .Values.server.replicas) -}}
{{- $urls = append $urls (printf "http://%s-server-%d.%s-server-headless.%s.svc:%v" $full $i $full $.Release.Namespace $.Values.server.port) -}}
{{- end -}}
{{- join "," $urls -}}
{{- end -}}
