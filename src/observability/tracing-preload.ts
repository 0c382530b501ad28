// `node --import=./dist/src/observability/tracing-preload.js` (npm start, the systemd unit): loads
// the OpenTelemetry SDK and its module hooks (tracing.ts) before the service's modules, only when
// an OTLP endpoint is configured. Otherwise it does nothing else: nothing of OpenTelemetry is
// loaded, no module is hooked, no span is made (docs/operations.md#traces).
const env = process.env;
const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
const off = env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none';
if (endpoint && !off) await import('./tracing.js');
