import {
  type CallOutcome,
  dispatchProviderCalls,
  type ProviderCall,
  type RunCallsOptions,
} from '../calls/dispatch-calls.js';
import type { CallOptions } from '../dispatch/call.js';
import { permissionDeniedFailure } from '../dispatch/errors.js';
import type { PendingApproval } from '../dispatch/gate.js';
import type { Registry } from '../registry/registry.js';
import { toolNameMap } from '../schema/names.js';
import type { ModelAdapter, ModelTurn, TokenUsage } from './model.js';
import { type AgentModelError, toModelError } from './model-error.js';
import {
  AGENT_STATE_KIND,
  AGENT_STATE_VERSION,
  type AgentDecisions,
  type AgentPauseState,
  type AgentPendingCall,
  AgentResumeError,
  claimPause,
  type RestoredPause,
  restorePause,
} from './pause-state.js';
import { type AgentTelemetry, inAgentSpan, inChatSpan } from './telemetry.js';

/** Why a run stopped. */
export type AgentStopReason = 'text' | 'max_steps' | 'aborted' | 'budget' | 'model_error' | 'approval';

/**
 * Every stop reason, in a stable order (for docs and meta-tests).
 *
 * @example
 * for (const reason of AGENT_STOP_REASONS) console.log(reason); // text, max_steps, aborted, budget, model_error, approval
 */
export const AGENT_STOP_REASONS: readonly AgentStopReason[] = Object.freeze([
  'text',
  'max_steps',
  'aborted',
  'budget',
  'model_error',
  'approval',
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
  /** Set when `stopReason` is `approval`: the calls waiting for a decision, in call order. */
  readonly pending?: readonly AgentPendingCall[];
  /**
   * Set when `stopReason` is `approval`: plain JSON to store, and to go on from with
   * `runAgent({ ...options, resume: state, decisions })`, in this process or another.
   */
  readonly state?: AgentPauseState<Message>;
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

/** The options of {@link runAgent} but where it starts from. */
export interface RunAgentSettings<Message> {
  /** The model: `openaiChat(client, { model })`, `anthropicMessages(…)`, `geminiGenerate(…)`, … */
  readonly model: ModelAdapter<Message>;
  /** The tools, behind their gate: every call goes through `registry.call` (parse, validate, gate, run). */
  readonly registry: Registry;
  /**
   * Who answers the gate's `ask`: `approver` (default), the registry's approver, during the run; or
   * `interrupt`, nobody now: the run stops after the step's other calls with `stopReason: 'approval'`,
   * the pending calls and a `state` to resume from with the decisions.
   */
  readonly approvals?: 'approver' | 'interrupt';
  /** The most model requests in the run (default 20, or the paused run's bound on a resume). */
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

/**
 * Options of {@link runAgent}: the settings, and either `messages` to start from, or the `state` of a
 * run paused for approval with a decision for each of its pending calls.
 */
export type RunAgentOptions<Message> = RunAgentSettings<Message> &
  (
    | {
        /** The transcript to start from, in the provider's message shape; it is copied, never changed. */
        readonly messages: readonly Message[];
        readonly resume?: undefined;
        readonly decisions?: undefined;
      }
    | {
        /** Ignored on a resume: the transcript is the state's. */
        readonly messages?: readonly Message[];
        /** The `state` of a result whose `stopReason` is `approval` (after a JSON round trip, if stored). */
        readonly resume: AgentPauseState<Message>;
        /** A decision for each pending call, by `callId`. */
        readonly decisions: AgentDecisions;
      }
  );

const DEFAULT_MAX_STEPS = 20;

/**
 * Runs the loop: send the transcript with the tools, read the calls, dispatch them through the registry
 * (its gate and approvals decide what runs), append the results in the provider's shape, and repeat until
 * the model answers in text or a bound stops it. Under `approvals: 'interrupt'` a call the gate asks about
 * waits: the run stops after the step's other calls with `stopReason: 'approval'`, the pending calls and
 * a JSON `state`; `resume` with `decisions` goes on from it, running each allowed call once. Never rejects for anything a model or a provider did:
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
 *
 * // Pause at the gate's `ask`, and go on later, in this process or another:
 * const paused = await runAgent({ model, registry, messages, approvals: 'interrupt' });
 * if (paused.stopReason === 'approval') await save(JSON.stringify(paused.state));
 * const resumed = await runAgent({
 *   model, registry, approvals: 'interrupt',
 *   resume: JSON.parse(await load()),
 *   decisions: { [paused.pending![0]!.callId]: { action: 'allow' } },
 * });
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
  const restored = resumeOf(options);
  const paused = restored?.state;
  const maxSteps = checkCount(options.maxSteps ?? paused?.maxSteps ?? DEFAULT_MAX_STEPS, 'maxSteps');
  const tokenBound = options.maxTokens ?? paused?.maxTokens;
  const maxTokens = tokenBound === undefined ? undefined : checkCount(tokenBound, 'maxTokens');
  const concurrency = checkCount(options.concurrency ?? 4, 'concurrency');
  const interrupt = approvalsOf(options.approvals) === 'interrupt';
  if (paused) claimPause(paused);
  const emit = (event: AgentEvent<Message>) => notify(options.onEvent, event);
  const messages = paused ? [...paused.messages] : [...(options.messages ?? [])];
  const steps: AgentStep[] = [];
  let inputTokens = paused?.usage.inputTokens ?? 0;
  let outputTokens = paused?.usage.outputTokens ?? 0;
  let text = paused?.step.text ?? '';
  const finish = (
    stopReason: AgentStopReason,
    extra: Pick<AgentResult<Message>, 'error' | 'pending' | 'state'> = {},
  ): AgentResult<Message> => {
    const result: AgentResult<Message> = {
      text,
      messages,
      steps,
      usage: { inputTokens, outputTokens },
      stopReason,
      ...extra,
    };
    emit({ type: 'done', result });
    return result;
  };
  const callOptions: RunCallsOptions = {
    concurrency,
    strict: model.schemaOptions.strict === true,
    ...(signal ? { signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.state !== undefined ? { state: options.state } : {}),
  };
  const settings: CallSettings = { registry, format: model.format, callOptions, interrupt, concurrency };
  // The end of a step: its results appended, or, when a call waits for a decision, the pause.
  const close = (turn: StepTurn, settled: Settled): AgentResult<Message> | undefined => {
    const outcomes = settled.map((entry) => entry.outcome);
    const step: AgentStep = {
      index: turn.index,
      text: turn.text,
      calls: outcomes,
      usage: turn.usage,
      finishReason: turn.finishReason,
    };
    steps.push(step);
    const pending = settled.flatMap((entry) => (entry.pending ? [entry.pending] : []));
    if (pending.length > 0) {
      const state = pauseState<Message>({
        format: model.format,
        messages,
        turn,
        settled,
        usage: { inputTokens, outputTokens },
        maxSteps,
        maxTokens,
        pending,
      });
      return finish('approval', { pending: state.pending, state });
    }
    if (outcomes.length > 0) messages.push(...model.toolResults(outcomes));
    notify(options.onStep, step);
    emit({ type: 'step', step });
    return undefined;
  };
  const report = (settled: Settled, index: number) => {
    for (const entry of settled) {
      if (entry.pending) continue;
      notify(options.onToolResult, entry.outcome, index);
      emit({ type: 'tool_result', step: index, outcome: entry.outcome });
    }
  };
  let index = 0;
  if (restored && paused) {
    index = paused.step.index;
    const settled = await settleDecided(settings, restored);
    report(
      settled.filter((_, position) => restored.calls[position]!.pending !== undefined),
      index,
    );
    const turn: StepTurn = {
      index,
      text: paused.step.text,
      usage: paused.step.usage,
      finishReason: paused.step.finishReason,
    };
    const ended = close(turn, settled);
    if (ended) return ended;
    index++;
  }
  for (; ; index++) {
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
      return finish('model_error', { error: toModelError(error, index, model.provider, model.model) });
    }
    inputTokens += turn.usage?.inputTokens ?? 0;
    outputTokens += turn.usage?.outputTokens ?? 0;
    messages.push(...turn.messages);
    text = turn.text;
    emit({ type: 'model_response', step: index, turn });
    let settled: Settled = [];
    if (turn.calls.length > 0) {
      const names = toolNameMap(registry.schemas(), model.format);
      for (const call of turn.calls) {
        const event = { step: index, tool: names.fromProvider(call.name), call };
        notify(options.onToolCall, event);
        emit({ type: 'tool_call', ...event });
      }
      settled = await settleCalls(settings, turn.calls, index);
      report(settled, index);
    }
    const ended = close(
      { index, text: turn.text, usage: turn.usage, finishReason: turn.finishReason },
      settled,
    );
    if (ended) return ended;
    if (turn.calls.length === 0) return finish('text');
  }
}

/** What the loop passes to run a step's calls. */
interface CallSettings {
  readonly registry: Registry;
  readonly format: ModelAdapter<unknown>['format'];
  readonly callOptions: RunCallsOptions;
  readonly interrupt: boolean;
  readonly concurrency: number;
}

/** The model's side of a step. */
interface StepTurn {
  readonly index: number;
  readonly text: string;
  readonly usage: TokenUsage | undefined;
  readonly finishReason: string | undefined;
}

/** Each call of a step, in call order: its outcome, and the pending call when it waits for a decision. */
type Settled = readonly {
  readonly callId: string;
  readonly outcome: CallOutcome;
  readonly pending: AgentPendingCall | undefined;
}[];

/** The calls of a new turn: all at once, or, under `interrupt`, each with an `onAsk` that pauses it. */
async function settleCalls(
  settings: CallSettings,
  calls: readonly ProviderCall[],
  index: number,
): Promise<Settled> {
  const callIds = callIdsOf(calls, index);
  if (!settings.interrupt) {
    const outcomes = await dispatchProviderCalls(
      settings.registry,
      calls,
      settings.format,
      settings.callOptions,
    );
    return outcomes.map((outcome, position) => ({
      callId: callIds[position]!,
      outcome,
      pending: undefined,
    }));
  }
  return pool(calls, settings.concurrency, (call, position) =>
    runOne(settings, call, callIds[position]!, undefined),
  );
}

/** The paused step again: settled calls kept, allowed ones run with their decision, denied ones refused. */
function settleDecided<Message>(settings: CallSettings, restored: RestoredPause<Message>): Promise<Settled> {
  return pool(restored.calls, settings.concurrency, async (entry) => {
    const { callId, call, tool, pending, decision } = entry;
    if (!pending || !decision) {
      const envelope = entry.envelope!;
      return {
        callId,
        outcome: { call, tool, envelope, text: JSON.stringify(envelope) },
        pending: undefined,
      };
    }
    if (decision.action === 'deny') {
      const envelope = permissionDeniedFailure(
        tool,
        decision.reason ?? 'a person declined this call',
        pending.rule,
      );
      return {
        callId,
        outcome: { call, tool, envelope, text: JSON.stringify(envelope) },
        pending: undefined,
      };
    }
    return runOne(settings, call, callId, { rule: pending.rule, answer: { action: 'allow' } });
  });
}

/**
 * One call through the registry. Under `interrupt`, an `ask` the decision brought back does not answer
 * (none, or another rule's) pauses the call: it ends `approval_pending`, and is reported as pending.
 */
async function runOne(
  settings: CallSettings,
  call: ProviderCall,
  callId: string,
  resume: CallOptions['resume'],
): Promise<Settled[number]> {
  let asked: PendingApproval | undefined;
  const extra: Pick<CallOptions, 'onAsk' | 'resume'> = {
    ...(resume ? { resume } : {}),
    ...(settings.interrupt
      ? {
          onAsk: (request: PendingApproval) => {
            asked = request;
            return { action: 'pause' as const };
          },
        }
      : {}),
  };
  const [outcome] = await dispatchProviderCalls(settings.registry, [call], settings.format, {
    ...settings.callOptions,
    ...extra,
  });
  const paused =
    asked !== undefined && !outcome!.envelope.ok && outcome!.envelope.error.type === 'approval_pending';
  return {
    callId,
    outcome: outcome!,
    pending:
      paused && asked
        ? {
            callId,
            tool: asked.tool.name,
            arguments: asked.arguments,
            ...(asked.decision.rule !== undefined ? { rule: asked.decision.rule } : {}),
            ...(asked.decision.reason !== undefined ? { reason: asked.decision.reason } : {}),
          }
        : undefined,
  };
}

/** Runs `work` over the items, at most `limit` at once; the answers keep the items' order. */
async function pool<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, position: number) => Promise<R>,
): Promise<R[]> {
  const answers = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const position = next++;
      answers[position] = await work(items[position]!, position);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return answers;
}

/** The provider's call ids, or `step<n>.call<i>` for a call without one (or with an id used twice). */
function callIdsOf(calls: readonly ProviderCall[], index: number): string[] {
  const seen = new Set<string>();
  return calls.map((call, position) => {
    const id =
      call.id !== undefined && call.id !== '' && !seen.has(call.id)
        ? call.id
        : `step${index}.call${position}`;
    seen.add(id);
    return id;
  });
}

/** The state of a pause, as plain JSON. */
function pauseState<Message>(parts: {
  readonly format: ModelAdapter<Message>['format'];
  readonly messages: readonly Message[];
  readonly turn: StepTurn;
  readonly settled: Settled;
  readonly usage: TokenUsage;
  readonly maxSteps: number;
  readonly maxTokens: number | undefined;
  readonly pending: readonly AgentPendingCall[];
}): AgentPauseState<Message> {
  const { turn } = parts;
  const state = {
    kind: AGENT_STATE_KIND,
    version: AGENT_STATE_VERSION,
    id: globalThis.crypto.randomUUID(),
    format: parts.format,
    messages: parts.messages,
    step: {
      index: turn.index,
      text: turn.text,
      usage: turn.usage,
      finishReason: turn.finishReason,
      calls: parts.settled.map(({ callId, outcome }) => ({
        callId,
        call: { id: outcome.call.id, name: outcome.call.name, arguments: outcome.call.arguments },
        tool: outcome.tool,
        envelope: outcome.envelope,
      })),
    },
    usage: parts.usage,
    maxSteps: parts.maxSteps,
    maxTokens: parts.maxTokens,
    pending: parts.pending,
  };
  // Plain JSON: what a store keeps and another process reads back is this very object.
  return JSON.parse(JSON.stringify(state)) as AgentPauseState<Message>;
}

/** The paused run to go on from, checked; undefined for a run that starts from messages. */
function resumeOf<Message>(options: RunAgentOptions<Message>): RestoredPause<Message> | undefined {
  const { resume, decisions } = options;
  if (resume === undefined && decisions === undefined) return undefined;
  if (resume === undefined) {
    throw new AgentResumeError(
      'invalid_option',
      "runAgent: decisions were given without resume. Pass the paused result's state as resume together with the decisions, or leave both out to start a run.",
    );
  }
  return restorePause<Message>(resume, decisions, options.model.format);
}

function approvalsOf(value: unknown): 'approver' | 'interrupt' {
  if (value === undefined || value === 'approver') return 'approver';
  if (value === 'interrupt') return 'interrupt';
  throw new RangeError(
    `runAgent: approvals must be "approver" or "interrupt", received ${JSON.stringify(value) ?? String(value)}.`,
  );
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
