/** W3C trace context to send with a remote call, as MCP puts it in a request's `_meta` (SEP-414). */
export interface TraceContext {
  readonly traceparent: string;
  readonly tracestate?: string;
}

/** A W3C `traceparent` of version 00 (the only one): trace and span ids not all zeros, lower-case hex. */
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
/** A `tracestate` worth passing on: printable ASCII, at most 8,192 characters (32 members of up to 256). */
const TRACESTATE = /^[\x20-\x7e]{1,8192}$/;
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
 * has one (or of its `mcp` field, the context of the MCP request a served registry runs the call for),
 * else the span active in OpenTelemetry's context (e.g. `instrument`'s `execute_tool` span), read from
 * the API's global registry so that this module never loads `@opentelemetry/api`. When both are there
 * and the active span is in the state's trace, the active span goes: it descends from the state's
 * parent (with `instrument`, the call's `execute_tool` span, which that parent parents).
 * `undefined` when there is neither, or what there is is not a valid W3C `traceparent`.
 *
 * @example
 * await registry.call('search', { query }, { state: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } });
 */
export function traceContextOf(state: unknown): TraceContext | undefined {
  const carried = carriedTraceContext(state);
  const active = activeTraceContext();
  if (!carried) return active;
  return active && traceIdOf(active) === traceIdOf(carried) ? active : carried;
}

/**
 * The W3C trace context a call's `state` carries, if any: its own `traceparent` and `tracestate`, or
 * those of its `mcp` field (where `serve*({ state })` keeps the MCP request context). Validated as
 * {@link incomingTraceContext} does.
 *
 * @example
 * carriedTraceContext(context.state)?.traceparent;
 */
export function carriedTraceContext(state: unknown): TraceContext | undefined {
  if (state === null || typeof state !== 'object') return undefined;
  if (Object.hasOwn(state, 'traceparent')) return incomingTraceContext(state);
  return Object.hasOwn(state, 'mcp') ? incomingTraceContext((state as { mcp?: unknown }).mcp) : undefined;
}

/**
 * The W3C trace context an incoming request carries (in MCP, the request's `_meta`; in a registry
 * call, its `state`): its `traceparent` when that is a valid version 00 one (lower-case hex, trace and
 * span ids not all zeros), with its `tracestate` when that is printable ASCII of a sane length.
 * Anything else, a malformed `traceparent` included, is no trace context: ignored, never an error.
 * This module imports nothing, so `toolpact/otel` and `toolpact/mcp` both use it.
 *
 * @example
 * incomingTraceContext({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
 */
export function incomingTraceContext(carrier: unknown): TraceContext | undefined {
  if (carrier === null || typeof carrier !== 'object') return undefined;
  const { traceparent, tracestate } = carrier as { traceparent?: unknown; tracestate?: unknown };
  if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent)) return undefined;
  return typeof tracestate === 'string' && TRACESTATE.test(tracestate)
    ? { traceparent, tracestate }
    : { traceparent };
}

/** The fields of a valid `traceparent` (see {@link incomingTraceContext}), as OpenTelemetry names them. */
export interface TraceparentFields {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
}

/**
 * Splits a `traceparent` that {@link incomingTraceContext} accepted into its ids and flags.
 *
 * @example
 * traceparentFields('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01').spanId; // '00f067aa0ba902b7'
 */
export function traceparentFields(traceparent: string): TraceparentFields {
  return {
    traceId: traceparent.slice(3, 35),
    spanId: traceparent.slice(36, 52),
    traceFlags: Number.parseInt(traceparent.slice(53, 55), 16),
  };
}

const traceIdOf = (context: TraceContext): string => traceparentFields(context.traceparent).traceId;

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
