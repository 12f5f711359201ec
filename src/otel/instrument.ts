import type {
  Attributes,
  Context,
  Counter,
  Histogram,
  Meter,
  MeterProvider,
  Span,
  Tracer,
} from '@opentelemetry/api';
import type { ToolContract } from '../contract/index.js';
import { principalOf } from '../dispatch/tool-identity.js';
import type { PolicyDecision } from '../policy/policy-gate.js';
import type { CallEnd, CallStart, Registry } from '../registry/registry.js';
import { carriedTraceContext, traceparentFields } from '../util/trace-context.js';
import {
  context,
  createNoopMeter,
  createTraceState,
  isSpanContextValid,
  metrics,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
} from './api.js';
import { ATTRIBUTES, DURATION_BUCKETS, METRICS, SCOPE_NAME, UNKNOWN_TOOL_NAME } from './attributes.js';
import { boundedContent, boundedText, DEFAULT_MAX_CONTENT_CHARS } from './bounded-content.js';

/** Options of {@link instrument}. */
export interface InstrumentOptions {
  /** Where spans go (default: the global tracer provider's `toolpact` tracer). */
  readonly tracer?: Tracer;
  /**
   * Where metrics go (default: the global meter provider's `toolpact` meter, looked up again
   * whenever the global provider changes, so an SDK registered later is still used).
   */
  readonly meter?: Meter;
  /**
   * Put each call's arguments and result on its span (`gen_ai.tool.call.arguments`,
   * `gen_ai.tool.call.result`), and the error message in the span status. Off by default, as the
   * conventions ask: content can hold personal data. Content is redacted as the audit log redacts it,
   * and bounded by `maxContentChars`.
   */
  readonly recordContent?: boolean;
  /** Longest argument or result text on a span, in characters (default 4,000). */
  readonly maxContentChars?: number;
}

interface Instruments {
  readonly duration: Histogram;
  readonly calls: Counter;
  /** False for the metrics API's no-ops (no SDK registered): then nothing is measured at all. */
  readonly live: boolean;
}

/** What a span of a registered tool starts with, computed once per contract. */
interface ToolFacts {
  readonly spanName: string;
  readonly attributes: Attributes;
}

const SPAN_START = Object.freeze({
  kind: SpanKind.INTERNAL,
  // The one attribute the conventions call sampling-relevant for execute_tool; the rest follow once recording.
  attributes: Object.freeze({ [ATTRIBUTES.operationName]: 'execute_tool' }),
});
const NOOP_HISTOGRAM = createNoopMeter().createHistogram(METRICS.duration).constructor;
// What the global tracer provider hands out while no SDK is registered.
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
/** Where `@opentelemetry/api` 1.x registers the global tracer, meter and context providers. */
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/**
 * Traces and measures every call of a registry after the OpenTelemetry GenAI semantic conventions:
 * one `execute_tool {tool}` span per call, a child of the caller's active span (or of the W3C trace
 * context the call's `state` carries: an MCP request's `_meta` `traceparent`, or `{ traceparent }` of
 * your own) and current while the tool runs (so what the tool traces nests under it), with the gate's
 * decision and rule as `toolpact.*` attributes; the `gen_ai.execute_tool.duration` histogram and the `toolpact.tool.calls`
 * counter, by tool, outcome and decision. With no SDK registered, a call costs a no-op span and
 * nothing is recorded. Returns a function that removes the instrumentation.
 *
 * @example
 * import { instrument } from 'toolpact/otel';
 * const registry = new Registry({ ...gate.registryOptions }).register(tools);
 * instrument(registry); // the global tracer and meter providers, as the OpenTelemetry SDK registers them
 */
export function instrument(registry: Registry, options: InstrumentOptions = {}): () => void {
  const maxChars = options.maxContentChars ?? DEFAULT_MAX_CONTENT_CHARS;
  if (!(Number.isInteger(maxChars) && maxChars >= 100)) {
    throw new RangeError(
      `maxContentChars must be a whole number of at least 100 characters, received ${String(options.maxContentChars)}.`,
    );
  }
  const tracer = options.tracer ?? trace.getTracer(SCOPE_NAME);
  const recordContent = options.recordContent === true;
  const fixed = options.meter ? instrumentsOf(options.meter) : undefined;
  // The metrics API has no proxy: a meter taken before the SDK registers stays a no-op forever.
  let provider: MeterProvider | undefined;
  let global: Instruments | undefined;
  const instruments = (): Instruments => {
    if (fixed) return fixed;
    const current = metrics.getMeterProvider();
    if (current !== provider || !global) {
      provider = current;
      global = instrumentsOf(current.getMeter(SCOPE_NAME));
    }
    return global;
  };
  const facts = new WeakMap<ToolContract, ToolFacts>();
  const factsOf = (call: CallStart): ToolFacts => {
    const contract = call.contract;
    if (!contract) return toolFacts(boundedText(call.tool, 128), undefined);
    let known = facts.get(contract);
    if (!known) {
      known = toolFacts(contract.name, contract);
      facts.set(contract, known);
    }
    return known;
  };

  // With no SDK registered at all, calls skip the wrapper before anything is made for them. The API
  // keeps what is registered in one global object (one per API major version, so every copy of the API
  // in a process shares it); while it holds no tracer and no meter provider, nothing can record, and one
  // property read says so without the API's version checks.
  const fixedActive = options.tracer !== undefined || fixed !== undefined;
  const active = (): boolean => {
    if (fixedActive) return true;
    const registered = (globalThis as { [API_GLOBAL]?: { trace?: unknown; metrics?: unknown } })[API_GLOBAL];
    if (registered === undefined || (registered.trace === undefined && registered.metrics === undefined)) {
      return false;
    }
    return (
      (trace.getTracerProvider() as InstanceType<typeof ProxyTracerProvider>).getDelegate?.() !==
        NOOP_TRACER_PROVIDER || instruments().live
    );
  };

  return registry.wrapCalls(
    (call, run) => {
      const parent = parentOf(call.state);
      const tool = factsOf(call);
      const span = tracer.startSpan(tool.spanName, SPAN_START, parent);
      const meters = instruments();
      if (!span.isRecording() && !meters.live) {
        // No SDK: nothing to record, so the call is declined. A span sampled out by an SDK is still made
        // current, so what the tool traces is sampled out with it; the API's invalid no-op span is not.
        return isSpanContextValid(span.spanContext())
          ? context.with(trace.setSpan(parent, span), run)
          : undefined;
      }
      return traced(call, run, span, parent, tool, meters, recordContent, maxChars);
    },
    { active },
  );
}

/**
 * The context a call's span starts in: the active one, with the trace context the call's `state`
 * carries (an MCP request's `traceparent` and `tracestate`) as the remote parent, unless a span of that
 * same trace is active already (it descends from that parent: e.g. a server span of the HTTP request).
 * Made with `trace.setSpanContext`, not the global propagator, which may not speak W3C.
 */
function parentOf(state: unknown): Context {
  const active = context.active();
  const carried = carriedTraceContext(state);
  if (carried === undefined) return active;
  const { traceparent, tracestate } = carried;
  const fields = traceparentFields(traceparent);
  if (trace.getSpanContext(active)?.traceId === fields.traceId) return active;
  return trace.setSpanContext(active, {
    ...fields,
    isRemote: true,
    ...(tracestate === undefined ? {} : { traceState: createTraceState(tracestate) }),
  });
}

async function traced(
  call: CallStart,
  run: () => Promise<CallEnd>,
  span: Span,
  parent: Context,
  tool: ToolFacts,
  meters: Instruments,
  recordContent: boolean,
  maxChars: number,
): Promise<void> {
  const recording = span.isRecording();
  if (recording) {
    span.setAttributes(tool.attributes);
    if (call.callId !== undefined)
      span.setAttribute(ATTRIBUTES.toolCallId, boundedText(String(call.callId), 200));
    const caller = principalOf(call.state);
    if (caller !== undefined) {
      const subject = boundedText(caller.subject, 200);
      span.setAttributes({ [ATTRIBUTES.enduserId]: subject, [ATTRIBUTES.userId]: subject });
    }
  }
  const started = performance.now();
  const end = await context.with(trace.setSpan(parent, span), run);
  const seconds = (performance.now() - started) / 1000;
  const decision = end.record.decision as PolicyDecision | undefined;
  const outcome = end.envelope.ok ? 'ok' : boundedText(end.envelope.error.type, 100);
  const action = decision?.action ?? 'none';
  if (meters.live) {
    const measured: Attributes = {
      [ATTRIBUTES.toolName]: call.contract ? call.contract.name : UNKNOWN_TOOL_NAME,
      [ATTRIBUTES.toolType]: 'function',
      [ATTRIBUTES.outcome]: outcome,
      [ATTRIBUTES.decision]: action,
    };
    if (!end.envelope.ok) measured[ATTRIBUTES.errorType] = outcome;
    meters.duration.record(seconds, measured);
    meters.calls.add(1, measured);
  }
  if (recording) {
    span.setAttributes(endAttributes(end, outcome, decision, recordContent, maxChars));
    if (!end.envelope.ok) {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        // The message may quote the arguments back, so it is content too.
        ...(recordContent ? { message: boundedText(end.envelope.error.message, maxChars) } : {}),
      });
    }
  }
  span.end();
}

function instrumentsOf(meter: Meter): Instruments {
  const duration = meter.createHistogram(METRICS.duration, {
    unit: 's',
    description: 'The duration of a single tool execution.',
    advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
  });
  return {
    live: !(duration instanceof NOOP_HISTOGRAM),
    duration,
    calls: meter.createCounter(METRICS.calls, {
      unit: '{call}',
      description: 'Tool calls, by tool, outcome and gate decision.',
    }),
  };
}

// The name of a registered tool is the developer's; a name only the model sent is bounded and redacted.
function toolFacts(name: string, contract: ToolContract | undefined): ToolFacts {
  const attributes: Attributes = {
    [ATTRIBUTES.toolName]: name,
    [ATTRIBUTES.toolType]: 'function',
  };
  if (contract) {
    attributes[ATTRIBUTES.toolDescription] = boundedText(contract.description, 2_000);
    attributes[ATTRIBUTES.category] = contract.category;
  }
  return { spanName: `execute_tool ${name}`, attributes: Object.freeze(attributes) };
}

function endAttributes(
  end: CallEnd,
  outcome: string,
  decision: PolicyDecision | undefined,
  recordContent: boolean,
  maxChars: number,
): Attributes {
  const { envelope, record } = end;
  const attributes: Attributes = {
    [ATTRIBUTES.outcome]: outcome,
    [ATTRIBUTES.decision]: decision?.action ?? 'none',
  };
  if (!envelope.ok) attributes[ATTRIBUTES.errorType] = outcome;
  if (decision?.rule !== undefined) attributes[ATTRIBUTES.rule] = boundedText(decision.rule, 200);
  if (decision?.approval !== undefined) attributes[ATTRIBUTES.approval] = decision.approval;
  if (decision?.source !== undefined) attributes[ATTRIBUTES.source] = boundedText(decision.source, 200);
  if (envelope.ok && envelope.truncated) attributes[ATTRIBUTES.truncated] = true;
  if (recordContent) {
    if (record.arguments !== undefined)
      attributes[ATTRIBUTES.toolCallArguments] = boundedContent(record.arguments, maxChars);
    if (envelope.ok) attributes[ATTRIBUTES.toolCallResult] = boundedContent(envelope.result, maxChars);
  }
  return attributes;
}
