/**
 * `toolpact/otel`: OpenTelemetry for a registry. Spans and metrics for every call after the GenAI
 * semantic conventions, an audit sink that sends each call as a log record, and a one-call SDK set-up
 * that exports over OTLP as the standard `OTEL_*` environment variables say. This entry loads only
 * `@opentelemetry/api` (an optional peer dependency); the SDK packages load when `startTelemetry` runs.
 *
 * @example
 * import { instrument } from 'toolpact/otel';
 * instrument(registry, { recordContent: false });
 */
export { ATTRIBUTES, DURATION_BUCKETS, METRICS, SCOPE_NAME, UNKNOWN_TOOL_NAME } from './attributes.js';
export { boundedContent, boundedText, DEFAULT_MAX_CONTENT_CHARS } from './bounded-content.js';
export { type InstrumentOptions, instrument } from './instrument.js';
export {
  AUDIT_EVENT_NAME,
  createOtelAuditSink,
  type OtelAuditSinkOptions,
} from './otel-audit-sink.js';
export { servingTelemetry } from './serving-telemetry.js';
export {
  startTelemetry,
  TELEMETRY_PACKAGES,
  type Telemetry,
  type TelemetryOptions,
} from './start-telemetry.js';
export { upstreamSpans } from './upstream-spans.js';
