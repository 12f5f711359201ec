/** W3C trace context to send with a remote call, as MCP puts it in a request's `_meta` (SEP-414). */
export interface TraceContext {
  readonly traceparent: string;
  readonly tracestate?: string;
}

const TRACEPARENT = /^[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
/** Where `@opentelemetry/api` 1.x registers its globals, and the key of the active span in a context. */
const OTEL_API_GLOBAL = Symbol.for('opentelemetry.js.api.1');
const OTEL_SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

interface OtelGlobals {
  readonly context?: { active(): { getValue(key: symbol): unknown } };
}

interface OtelSpanContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly traceState?: { serialize(): string };
}

/**
 * The trace context a call carries: the `traceparent` (and `tracestate`) of the call's `state` when it
 * has one, else the span active in OpenTelemetry's context (e.g. `instrument`'s `execute_tool` span),
 * read from the API's global registry so that this module never loads `@opentelemetry/api`.
 * `undefined` when there is neither, or what there is is not a valid W3C `traceparent`.
 *
 * @example
 * await registry.call('search', { query }, { state: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } });
 */
export function traceContextOf(state: unknown): TraceContext | undefined {
  if (state !== null && typeof state === 'object' && Object.hasOwn(state, 'traceparent')) {
    const { traceparent, tracestate } = state as { traceparent?: unknown; tracestate?: unknown };
    if (typeof traceparent === 'string' && TRACEPARENT.test(traceparent)) {
      return typeof tracestate === 'string' && tracestate !== ''
        ? { traceparent, tracestate }
        : { traceparent };
    }
  }
  return activeTraceContext();
}

function activeTraceContext(): TraceContext | undefined {
  const globals = (globalThis as { [OTEL_API_GLOBAL]?: OtelGlobals })[OTEL_API_GLOBAL];
  let spanContext: OtelSpanContext | undefined;
  try {
    const span = globals?.context?.active().getValue(OTEL_SPAN_KEY) as
      | { spanContext?: () => OtelSpanContext }
      | undefined;
    spanContext = span?.spanContext?.();
  } catch {
    return undefined;
  }
  if (!spanContext) return undefined;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
  if (!TRACEPARENT.test(traceparent)) return undefined;
  const tracestate = spanContext.traceState?.serialize();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}
