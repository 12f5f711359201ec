import type { ModelAdapter, ModelTurn, TokenUsage } from './model.js';
import type { AgentModelError } from './model-error.js';

/**
 * What `runAgent` traces with: the caller's OpenTelemetry tracer (`@opentelemetry/api`, an optional peer).
 *
 * @example
 * await runAgent({ model, registry, messages, telemetry: { tracer: trace.getTracer('my-app'), agentName: 'helper' } });
 */
export interface AgentTelemetry {
  readonly tracer: AgentTracer;
  /** `gen_ai.agent.name` of the `invoke_agent` span, and the end of its name. */
  readonly agentName?: string;
}

/** An attribute value as OpenTelemetry takes it. */
type AttributeValue =
  | string
  | number
  | boolean
  | readonly (string | null | undefined)[]
  | readonly (number | null | undefined)[]
  | readonly (boolean | null | undefined)[];
type Attributes = Record<string, AttributeValue | undefined>;

/**
 * The part of an OpenTelemetry span the agent loop writes to. Written out here rather than imported, so
 * that the published types of `toolpact/agent` do not need `@opentelemetry/api` installed.
 */
export interface AgentSpan {
  setAttribute(key: string, value: AttributeValue): unknown;
  setAttributes(attributes: Attributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

/** The part of an OpenTelemetry `Tracer` the agent loop uses; any `Tracer` of `@opentelemetry/api` is one. */
export interface AgentTracer {
  startActiveSpan<F extends (span: AgentSpan) => unknown>(
    name: string,
    options: { kind?: number; attributes?: Attributes },
    fn: F,
  ): ReturnType<F>;
}

// The numeric values of @opentelemetry/api's SpanKind and SpanStatusCode, so that nothing of it is
// loaded at run time: the tracer is the caller's.
const SPAN_KIND_INTERNAL = 0;
const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;

/** The attributes every span of a run shares (OpenTelemetry GenAI semantic conventions). */
function baseAttributes<Message>(model: ModelAdapter<Message>, operation: string): Attributes {
  return {
    'gen_ai.operation.name': operation,
    'gen_ai.provider.name': model.provider,
    'gen_ai.request.model': model.model,
  };
}

function usageAttributes(usage: TokenUsage | undefined): Attributes {
  return usage
    ? { 'gen_ai.usage.input_tokens': usage.inputTokens, 'gen_ai.usage.output_tokens': usage.outputTokens }
    : {};
}

/**
 * Runs the whole loop inside an active `invoke_agent` span, so that everything the loop starts — the
 * `chat` spans and the tool calls (with their `execute_tool` spans, when the registry is traced) — nests
 * under it.
 */
export function inAgentSpan<
  Message,
  Result extends {
    readonly usage: TokenUsage;
    readonly stopReason: string;
    readonly error?: AgentModelError;
  },
>(telemetry: AgentTelemetry, model: ModelAdapter<Message>, run: () => Promise<Result>): Promise<Result> {
  const name = telemetry.agentName ? `invoke_agent ${telemetry.agentName}` : 'invoke_agent';
  const attributes: Attributes = {
    ...baseAttributes(model, 'invoke_agent'),
    ...(telemetry.agentName ? { 'gen_ai.agent.name': telemetry.agentName } : {}),
  };
  return telemetry.tracer.startActiveSpan(
    name,
    { kind: SPAN_KIND_INTERNAL, attributes },
    async (span: AgentSpan) => {
      try {
        const result = await run();
        span.setAttributes({
          ...usageAttributes(result.usage),
          'toolpact.agent.stop_reason': result.stopReason,
        });
        if (result.error) {
          span.setAttribute('error.type', result.error.name);
          span.setStatus({ code: STATUS_ERROR, message: result.error.message });
        }
        return result;
      } finally {
        span.end();
      }
    },
  );
}

/** One model request inside an active `chat {model}` client span, with the response's model, id, finish reason and usage. */
export function inChatSpan<Message>(
  telemetry: AgentTelemetry,
  model: ModelAdapter<Message>,
  request: () => Promise<ModelTurn<Message>>,
): Promise<ModelTurn<Message>> {
  return telemetry.tracer.startActiveSpan(
    `chat ${model.model}`,
    { kind: SPAN_KIND_CLIENT, attributes: baseAttributes(model, 'chat') },
    async (span: AgentSpan) => {
      try {
        const turn = await request();
        span.setAttributes({
          ...usageAttributes(turn.usage),
          ...(turn.responseModel ? { 'gen_ai.response.model': turn.responseModel } : {}),
          ...(turn.responseId ? { 'gen_ai.response.id': turn.responseId } : {}),
          ...(turn.finishReason ? { 'gen_ai.response.finish_reasons': [turn.finishReason] } : {}),
        });
        return turn;
      } catch (error) {
        const status = (error as { status?: unknown } | null)?.status;
        span.setAttribute(
          'error.type',
          typeof status === 'number'
            ? String(status)
            : error instanceof Error
              ? error.constructor.name
              : '_OTHER',
        );
        span.setStatus({
          code: STATUS_ERROR,
          message: error instanceof Error ? error.message : String(error),
        });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
