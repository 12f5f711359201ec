import type { Registry } from '../registry/registry.js';
import { type CallOutcome, dispatchProviderCalls, type ProviderCall } from '../schema/dispatch-calls.js';
import { toolNameMap } from '../schema/names.js';
import type { ModelAdapter, ModelTurn, TokenUsage } from './model.js';
import { type AgentModelError, toModelError } from './model-error.js';
import { type AgentTelemetry, inAgentSpan, inChatSpan } from './telemetry.js';

/** Why a run stopped. */
export type AgentStopReason = 'text' | 'max_steps' | 'aborted' | 'budget' | 'model_error';

/**
 * Every stop reason, in a stable order (for docs and meta-tests).
 *
 * @example
 * for (const reason of AGENT_STOP_REASONS) console.log(reason); // text, max_steps, aborted, budget, model_error
 */
export const AGENT_STOP_REASONS: readonly AgentStopReason[] = Object.freeze([
  'text',
  'max_steps',
  'aborted',
  'budget',
  'model_error',
]);

/** One model request and the calls it asked for. */
export interface AgentStep {
  /** 0-based. */
  readonly index: number;
  /** What the model wrote beside its calls, or its answer on the last step. */
  readonly text: string;
  /** Each call with its envelope, in the order the model sent them. */
  readonly calls: readonly CallOutcome[];
  readonly usage: TokenUsage | undefined;
  readonly finishReason: string | undefined;
}

/** What a run answers. It always resolves; a provider failure is `stopReason: 'model_error'`. */
export interface AgentResult<Message> {
  /** The model's last text (its answer when `stopReason` is `text`). */
  readonly text: string;
  /** The whole transcript: the messages given, then every turn and every result, in the provider's shape. */
  readonly messages: Message[];
  readonly steps: readonly AgentStep[];
  /** Totals over every request, as the provider's `usage` reported them. */
  readonly usage: TokenUsage;
  readonly stopReason: AgentStopReason;
  /** Set when `stopReason` is `model_error`. */
  readonly error?: AgentModelError;
}

/** What happens during a run, in order. */
export type AgentEvent<Message = unknown> =
  | { readonly type: 'model_request'; readonly step: number }
  | { readonly type: 'model_response'; readonly step: number; readonly turn: ModelTurn<Message> }
  | {
      readonly type: 'tool_call';
      readonly step: number;
      /** The registry's name of the tool (a provider alias mapped back). */
      readonly tool: string;
      readonly call: ProviderCall;
    }
  | { readonly type: 'tool_result'; readonly step: number; readonly outcome: CallOutcome }
  | { readonly type: 'step'; readonly step: AgentStep }
  | { readonly type: 'done'; readonly result: AgentResult<Message> };

/** Options of {@link runAgent}. */
export interface RunAgentOptions<Message> {
  /** The model: `openaiChat(client, { model })`, `anthropicMessages(…)`, `geminiGenerate(…)`, … */
  readonly model: ModelAdapter<Message>;
  /** The tools, behind their gate: every call goes through `registry.call` (parse, validate, gate, run). */
  readonly registry: Registry;
  /** The transcript to start from, in the provider's message shape; it is copied, never changed. */
  readonly messages: readonly Message[];
  /** The most model requests in the run (default 20). */
  readonly maxSteps?: number;
  /** Stop before a request once this many tokens (input + output, from `usage`) have been used. */
  readonly maxTokens?: number;
  /** Aborts the model request in flight and every running call; the run ends with `aborted`. */
  readonly signal?: AbortSignal;
  /** Wall-clock limit of each tool call, in milliseconds (the tighter of this and the tool's own applies). */
  readonly timeoutMs?: number;
  /** How many calls of one step run at once (default 4); results keep the order of the calls. */
  readonly concurrency?: number;
  /** Passed to every call, for the tools and the gate. */
  readonly state?: unknown;
  /** The names of the tools to offer on the next request (default: all); read before every request. */
  readonly activeTools?: () => readonly string[];
  /** Told of each finished step. Observers never change the run: one that throws is ignored. */
  readonly onStep?: (step: AgentStep) => void;
  /** Told of each call before it runs. */
  readonly onToolCall?: (call: {
    readonly step: number;
    readonly tool: string;
    readonly call: ProviderCall;
  }) => void;
  /** Told of each call's outcome, in call order once the step's calls are done. */
  readonly onToolResult?: (outcome: CallOutcome, step: number) => void;
  /** Told of every event (what {@link agentEvents} yields). */
  readonly onEvent?: (event: AgentEvent<Message>) => void;
  /**
   * Trace the run with OpenTelemetry: an `invoke_agent` span for the run, a `chat {model}` span per
   * request (GenAI semantic conventions), and the tool calls run inside the agent span's context.
   */
  readonly telemetry?: AgentTelemetry;
}

const DEFAULT_MAX_STEPS = 20;

/**
 * Runs the loop: send the transcript with the tools, read the calls, dispatch them through the registry
 * (its gate and approvals decide what runs), append the results in the provider's shape, and repeat until
 * the model answers in text or a bound stops it. Never rejects for anything a model or a provider did:
 * bad arguments and unknown tools become envelopes the model reads on the next step, and a provider
 * failure (after the SDK's own retries) ends the run with `model_error`, the transcript kept.
 *
 * @example
 * import OpenAI from 'openai';
 * import { openaiChat, runAgent } from 'toolpact/agent';
 * const result = await runAgent({
 *   model: openaiChat(new OpenAI(), { model: 'gpt-5-mini' }),
 *   registry,
 *   messages: [{ role: 'user', content: 'Summarize docs/guide.md' }],
 * });
 * console.log(result.stopReason, result.text);
 */
export async function runAgent<Message>(options: RunAgentOptions<Message>): Promise<AgentResult<Message>> {
  return drive(options, options.signal);
}

/** A run seen as a stream of events; `result` settles when the run ends. */
export interface AgentEventStream<Message> extends AsyncIterable<AgentEvent<Message>> {
  readonly result: Promise<AgentResult<Message>>;
}

/**
 * The same run as {@link runAgent}, as an async iterator of events. Leaving the loop early (`break`)
 * aborts the run; `result` then resolves with `aborted`.
 *
 * @example
 * const run = agentEvents({ model, registry, messages });
 * for await (const event of run) if (event.type === 'tool_call') console.log('→', event.tool);
 * const { text } = await run.result;
 */
export function agentEvents<Message>(options: RunAgentOptions<Message>): AgentEventStream<Message> {
  const controller = new AbortController();
  const outer = options.signal;
  const forward = () => controller.abort(outer?.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener('abort', forward, { once: true });
  const queue: AgentEvent<Message>[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  const push = (event: AgentEvent<Message>) => {
    queue.push(event);
    wake?.();
  };
  const result = drive({ ...options, onEvent: chain(options.onEvent, push) }, controller.signal).finally(
    () => {
      finished = true;
      outer?.removeEventListener('abort', forward);
      wake?.();
    },
  );
  return {
    result,
    [Symbol.asyncIterator]() {
      return {
        async next(): Promise<IteratorResult<AgentEvent<Message>>> {
          while (queue.length === 0 && !finished) await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          const event = queue.shift();
          return event ? { value: event, done: false } : { value: undefined, done: true };
        },
        async return(): Promise<IteratorResult<AgentEvent<Message>>> {
          controller.abort(new DOMException('The event iterator was closed', 'AbortError'));
          await result;
          queue.length = 0;
          return { value: undefined, done: true };
        },
      };
    },
  };
}

function chain<T>(first: ((value: T) => void) | undefined, second: (value: T) => void): (value: T) => void {
  return first
    ? (value) => {
        notify(first, value);
        second(value);
      }
    : second;
}

function notify<A extends unknown[]>(listener: ((...args: A) => void) | undefined, ...args: A): void {
  if (!listener) return;
  try {
    listener(...args);
  } catch {
    // An observer must not change the run.
  }
}

function drive<Message>(
  options: RunAgentOptions<Message>,
  signal: AbortSignal | undefined,
): Promise<AgentResult<Message>> {
  const { telemetry } = options;
  return telemetry
    ? inAgentSpan(telemetry, options.model, () => loop(options, signal))
    : loop(options, signal);
}

async function loop<Message>(
  options: RunAgentOptions<Message>,
  signal: AbortSignal | undefined,
): Promise<AgentResult<Message>> {
  const { model, registry, telemetry } = options;
  const maxSteps = checkCount(options.maxSteps ?? DEFAULT_MAX_STEPS, 'maxSteps');
  const maxTokens = options.maxTokens === undefined ? undefined : checkCount(options.maxTokens, 'maxTokens');
  const concurrency = checkCount(options.concurrency ?? 4, 'concurrency');
  const emit = (event: AgentEvent<Message>) => notify(options.onEvent, event);
  const messages = [...options.messages];
  const steps: AgentStep[] = [];
  let inputTokens = 0;
  let outputTokens = 0;
  let text = '';
  const finish = (stopReason: AgentStopReason, error?: AgentModelError): AgentResult<Message> => {
    const result: AgentResult<Message> = {
      text,
      messages,
      steps,
      usage: { inputTokens, outputTokens },
      stopReason,
      ...(error ? { error } : {}),
    };
    emit({ type: 'done', result });
    return result;
  };
  const callOptions = {
    concurrency,
    strict: model.schemaOptions.strict === true,
    ...(signal ? { signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.state !== undefined ? { state: options.state } : {}),
  };
  for (let index = 0; ; index++) {
    if (signal?.aborted) return finish('aborted');
    if (index >= maxSteps) return finish('max_steps');
    if (maxTokens !== undefined && inputTokens + outputTokens >= maxTokens) return finish('budget');
    emit({ type: 'model_request', step: index });
    let turn: ModelTurn<Message>;
    try {
      const request = { messages, tools: toolsToOffer(options), signal };
      turn = await (telemetry
        ? inChatSpan(telemetry, model, () => model.generate(request))
        : model.generate(request));
    } catch (error) {
      if (signal?.aborted) return finish('aborted');
      return finish('model_error', toModelError(error, index, model.provider, model.model));
    }
    inputTokens += turn.usage?.inputTokens ?? 0;
    outputTokens += turn.usage?.outputTokens ?? 0;
    messages.push(...turn.messages);
    text = turn.text;
    emit({ type: 'model_response', step: index, turn });
    let outcomes: CallOutcome[] = [];
    if (turn.calls.length > 0) {
      const names = toolNameMap(registry.schemas(), model.format);
      for (const call of turn.calls) {
        const event = { step: index, tool: names.fromProvider(call.name), call };
        notify(options.onToolCall, event);
        emit({ type: 'tool_call', ...event });
      }
      outcomes = await dispatchProviderCalls(registry, turn.calls, model.format, callOptions);
      for (const outcome of outcomes) {
        notify(options.onToolResult, outcome, index);
        emit({ type: 'tool_result', step: index, outcome });
      }
      messages.push(...model.toolResults(outcomes));
    }
    const step: AgentStep = {
      index,
      text: turn.text,
      calls: outcomes,
      usage: turn.usage,
      finishReason: turn.finishReason,
    };
    steps.push(step);
    notify(options.onStep, step);
    emit({ type: 'step', step });
    if (turn.calls.length === 0) return finish('text');
  }
}

/** The provider tools to send: all of them, or those `activeTools` names, in registration order. */
function toolsToOffer<Message>(options: RunAgentOptions<Message>): readonly unknown[] {
  const { registry, model } = options;
  const tools = registry.schemas(model.format, model.schemaOptions);
  if (!options.activeTools) return tools;
  const active = new Set(options.activeTools());
  const contracts = registry.schemas();
  return tools.filter((_, index) => active.has(contracts[index]!.name));
}

function checkCount(value: number, option: string): number {
  if (!(Number.isInteger(value) && value > 0))
    throw new RangeError(`runAgent: ${option} must be a positive integer, received ${String(value)}.`);
  return value;
}
