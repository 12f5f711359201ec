import { loadOptionalPeer } from '../util/optional-peer.js';

// `@opentelemetry/api` is an optional peer: loaded here, at the entry's top level, so a missing one is
// named. The SDK packages load later, in startTelemetry.
const api = await loadOptionalPeer(() => import('@opentelemetry/api'), '@opentelemetry/api', 'toolpact/otel');
export const {
  context,
  createNoopMeter,
  createTraceState,
  isSpanContextValid,
  metrics,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
} = api;
