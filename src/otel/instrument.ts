import {
  type Attributes,
  type Counter,
  context,
  type Histogram,
  isSpanContextValid,
  type Meter,
  type MeterProvider,
  metrics,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { PolicyDecision } from '../policy/policy-gate.js';
import type { CallEnd, CallStart, Registry } from '../registry/registry.js';
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
}

/**
 * Traces and measures every call of a registry after the OpenTelemetry GenAI semantic conventions:
 * one `execute_tool {tool}` span per call, a child of the caller's active span and current while
 * the tool runs (so what the tool traces nests under it), with the gate's decision and rule as
 * `toolpact.*` attributes; the `gen_ai.execute_tool.duration` histogram and the `toolpact.tool.calls`
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

  return registry.wrapCalls(async (call, run) => {
    const parent = context.active();
    const span = tracer.startSpan(
      `execute_tool ${spanToolName(call.tool)}`,
      { kind: SpanKind.INTERNAL, attributes: startAttributes(call) },
      parent,
    );
    const started = performance.now();
    // With no SDK the span is an invalid no-op: making it current would change nothing.
    const end =
      span.isRecording() || isSpanContextValid(span.spanContext())
        ? await context.with(trace.setSpan(parent, span), run)
        : await run();
    const seconds = (performance.now() - started) / 1000;
    const outcome = end.envelope.ok ? 'ok' : end.envelope.error.type;
    const decision = end.record.decision as PolicyDecision | undefined;
    const measured: Attributes = {
      [ATTRIBUTES.toolName]: call.contract ? call.contract.name : UNKNOWN_TOOL_NAME,
      [ATTRIBUTES.toolType]: 'function',
      [ATTRIBUTES.outcome]: boundedText(outcome, 100),
      [ATTRIBUTES.decision]: decision?.action ?? 'none',
    };
    if (!end.envelope.ok) measured[ATTRIBUTES.errorType] = measured[ATTRIBUTES.outcome];
    const { duration, calls } = instruments();
    duration.record(seconds, measured);
    calls.add(1, measured);
    if (span.isRecording()) {
      span.setAttributes(endAttributes(end, decision, recordContent, maxChars));
      if (!end.envelope.ok) {
        span.setStatus({
          code: SpanStatusCode.ERROR,
          // The message may quote the arguments back, so it is content too.
          ...(recordContent ? { message: boundedText(end.envelope.error.message, maxChars) } : {}),
        });
      }
    }
    span.end();
  });
}

function instrumentsOf(meter: Meter): Instruments {
  return {
    duration: meter.createHistogram(METRICS.duration, {
      unit: 's',
      description: 'The duration of a single tool execution.',
      advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
    }),
    calls: meter.createCounter(METRICS.calls, {
      unit: '{call}',
      description: 'Tool calls, by tool, outcome and gate decision.',
    }),
  };
}

// The name as the model sent it may be anything; what goes on a span is bounded and redacted.
function spanToolName(name: string): string {
  return boundedText(name, 128);
}

function startAttributes(call: CallStart): Attributes {
  const attributes: Attributes = {
    [ATTRIBUTES.operationName]: 'execute_tool',
    [ATTRIBUTES.toolName]: spanToolName(call.tool),
    [ATTRIBUTES.toolType]: 'function',
  };
  if (call.callId !== undefined) attributes[ATTRIBUTES.toolCallId] = boundedText(String(call.callId), 200);
  if (call.contract) {
    attributes[ATTRIBUTES.toolDescription] = boundedText(call.contract.description, 2_000);
    attributes[ATTRIBUTES.category] = call.contract.category;
  }
  return attributes;
}

function endAttributes(
  end: CallEnd,
  decision: PolicyDecision | undefined,
  recordContent: boolean,
  maxChars: number,
): Attributes {
  const { envelope, record } = end;
  const attributes: Attributes = {
    [ATTRIBUTES.outcome]: envelope.ok ? 'ok' : boundedText(envelope.error.type, 100),
    [ATTRIBUTES.decision]: decision?.action ?? 'none',
  };
  if (!envelope.ok) attributes[ATTRIBUTES.errorType] = attributes[ATTRIBUTES.outcome];
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
