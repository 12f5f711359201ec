import {
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CallOptions } from '../dispatch/call.js';
import type { Envelope } from '../dispatch/envelope.js';
import { permissionDeniedFailure, toolFailure } from '../dispatch/errors.js';
import { principalKey } from '../dispatch/principal.js';
import { principalOf, toolIdentity } from '../dispatch/tool-identity.js';
import type { Registry } from '../registry/registry.js';
import { digestOf } from '../util/digest.js';
import { supportsFormElicitation } from './client-capabilities.js';
import { HeldCall, HeldCalls } from './held-call.js';
import {
  type AnsweredInput,
  type AskedInput,
  declaresInput,
  type InputKind,
  InputRound,
  inputMethod,
  type MisansweredInput,
} from './input-round.js';
import { approvalAsk, approvalRequest, approvalResponse } from './modern-approval.js';
import type { InputUnsupportedDetails } from './remote-tool.js';
import { type McpRequestContext, useInputRound } from './request-context.js';
import {
  bindingFor,
  type RequestStateBinding,
  type RequestStateRefusal,
  type RequestStateSealer,
} from './request-state.js';

/** What a modern `tools/call` comes to: an envelope to answer, or an input-required result. */
export type ModernOutcome = { readonly envelope: Envelope } | { readonly inputRequired: InputRequiredResult };

/**
 * One `tools/call` of revision 2026-07-28, where the server cannot push a request in the middle of a
 * call, so everything the call needs from the client is asked with an input-required result and a
 * sealed `requestState`, and the client's retry brings the answers and the state back:
 *
 * 1. the gate's `ask` pauses the call, and the approval form is asked (the gate decides first);
 * 2. the tool's own `mcp.elicit/sample/listRoots` stop the run at the first unanswered ask (with
 *    every ask made alongside it), and those are asked. Each retry runs the tool again from the
 *    start; answered asks resolve in order from the state and the retry's `inputResponses`.
 *
 * The state is opened before anything runs. One that cannot be read (altered, malformed, sealed by
 * another key) is a malformed request: JSON-RPC -32602. One of ours that does not answer this call
 * (expired, another call's or caller's, already used) is refused as a result the model reads. A
 * question needing a capability the request's `_meta` does not declare is refused with -32021, and
 * an answer of another kind than its question (a form's answer where the model was asked) with -32602.
 *
 * @example
 * const outcome = await modernCall(registry, name, args, options, ctx, context, RequestStateSealer.fromEnvironment());
 */
export async function modernCall(
  registry: Registry,
  name: string,
  args: unknown,
  options: CallOptions,
  ctx: ServerContext,
  context: McpRequestContext,
  states: RequestStateSealer | undefined,
): Promise<ModernOutcome> {
  // Bound to who is calling as every approval binds it: the transport's authenticated client, if any.
  const caller = principalOf(context);
  const principal = caller === undefined ? undefined : principalKey(caller);
  // The state names the tool by its identity too (its source, its name there, the definition shown),
  // so a retry that reaches another server's tool behind the same name, or a changed definition, is
  // refused and asked anew.
  const binding = bindingFor(boundName(registry, name, ctx), args, undefined, principal);
  const responses = ctx.mcpReq.inputResponses;
  const sealed = ctx.mcpReq.requestState<unknown>();
  let carried: CarriedState = {};
  if (sealed !== undefined) {
    if (!states) throw unreadable(name, 'this server issues no request states, so it cannot read one');
    const opened = await states.consumeShared(sealed, binding);
    if (!opened.ok) return { envelope: refused(name, opened) };
    carried = carriedOf(opened.data);
  }
  // The rule is sealed in the state's data, not in its binding: the retry cannot know it before the
  // state is opened. It is as bound there (sealed, authenticated), and `resume` answers only an ask by
  // that same rule, so an ask by another rule is asked anew. An approval granted in an earlier round
  // holds for the rounds of the tool's own questions that follow it.
  let resume: CallOptions['resume'];
  if (carried.rule !== undefined) {
    const answer = approvalResponse(responses);
    // A retry with the state but no answer to the form: nothing is decided, so the call asks again.
    if (answer !== undefined) resume = { rule: carried.rule ?? undefined, answer };
  } else if (carried.granted !== undefined) {
    resume = { rule: carried.granted ?? undefined, answer: { action: 'allow', scope: 'once' } };
  }
  if (states && carried.held !== undefined) {
    const call = heldCallsOf(states).take(carried.held);
    if (!call) return { envelope: heldGone(name) };
    const misanswered = call.answer(responses);
    if (misanswered) {
      call.abandon(new Error('The client answered a question with a response of another kind.'));
      throwMisanswered(name, misanswered);
    }
    return drive(name, states, binding, call, context, carried.granted);
  }
  const capabilities = context.clientCapabilities;
  const ask = approvalAsk(states !== undefined && supportsFormElicitation(capabilities));
  const callOptions: CallOptions = { ...options, ...(resume ? { resume } : {}), onAsk: ask.onAsk };
  const granted = () =>
    resume?.answer.action === 'allow' ? (resume.rule ?? null) : (carried.granted ?? undefined);
  let envelope: Envelope;
  let round: InputRound | undefined;
  if (states && registry.get(name)?.meta.inputRounds === 'held') {
    // A tool that must not run twice (an imported MCP tool calls another server) runs once: its
    // questions pause the request, and the retry finds the same run waiting here.
    const call = new HeldCall(context);
    call.start(() => registry.call(name, args, { ...callOptions, signal: call.signal }));
    const driven = await drive(name, states, binding, call, context, granted());
    if ('inputRequired' in driven) return driven;
    envelope = driven.envelope;
  } else {
    round = new InputRound(capabilities, carried.answered ?? [], carried.asked ?? [], responses);
    if (states) useInputRound(context, round);
    envelope = await registry.call(name, args, callOptions);
    checkRound(name, round);
  }
  if (!states) return { envelope };
  if (ask.asked && !envelope.ok && envelope.error.type === 'approval_pending') {
    const requestState = states.seal(binding, { rule: ask.asked.decision.rule ?? null });
    return { inputRequired: inputRequired({ inputRequests: approvalRequest(ask.asked), requestState }) };
  }
  const asked = round?.asked ?? [];
  if (!round || asked.length === 0) return { envelope };
  return nextRound(
    name,
    states,
    binding,
    { granted: granted(), answered: [...round.answered], asked },
    round,
  );
}

const heldCalls = new WeakMap<RequestStateSealer, HeldCalls>();

/** The held calls of the server whose states `states` seals, kept as long as a state lives. */
function heldCallsOf(states: RequestStateSealer): HeldCalls {
  let calls = heldCalls.get(states);
  if (!calls) {
    calls = new HeldCalls(states.ttlMs);
    heldCalls.set(states, calls);
  }
  return calls;
}

/**
 * Gives up every held call whose states `states` sealed (the server that serves them is closing):
 * each one's questions fail, and its run is cancelled.
 *
 * @example
 * abandonHeldCalls(sealer);
 */
export function abandonHeldCalls(states: RequestStateSealer): void {
  heldCalls.get(states)?.abandonAll(new Error('The server closed while the call waited for its client.'));
}

/**
 * Waits on a held call for one request: its envelope when it ends, else its questions, asked with a
 * state that names the call (and the approval it was granted, for the audit of later rounds).
 */
async function drive(
  name: string,
  states: RequestStateSealer,
  binding: RequestStateBinding,
  call: HeldCall,
  context: McpRequestContext,
  granted: string | null | undefined,
): Promise<ModernOutcome> {
  const driven = await call.drive(context);
  if ('envelope' in driven) {
    // The server behind the tool needed what this client did not declare: refused as it would have been.
    const lacking = clientLacks(driven.envelope, context.clientCapabilities);
    if (lacking) throw missingCapability(name, lacking);
    return driven;
  }
  if ('missing' in driven) throw missingCapability(name, driven.missing);
  const requestState = states.seal(binding, {
    held: call.id,
    ...(granted === undefined ? {} : { granted }),
  });
  heldCallsOf(states).keep(call);
  return { inputRequired: inputRequired({ inputRequests: driven.inputRequests, requestState }) };
}

/**
 * The capabilities an imported tool's server needed (`mcp_input_unsupported`) that the calling client
 * did not declare; undefined when the failure is another, or the client declared them all.
 */
function clientLacks(
  envelope: Envelope,
  declared: ClientCapabilities | undefined,
): ClientCapabilities | undefined {
  if (envelope.ok || envelope.error.type !== 'mcp_input_unsupported') return undefined;
  const asked = (envelope.error.details as Partial<InputUnsupportedDetails> | undefined)?.asked;
  const lacking = KINDS.filter((kind) => asked?.includes(kind) && !declaresInput(declared, kind));
  return lacking.length > 0 ? Object.fromEntries(lacking.map((kind) => [kind, {}])) : undefined;
}

/** The answer to a retry whose held call is no longer here. */
function heldGone(name: string): Envelope {
  const { error } = permissionDeniedFailure(name, 'the call this retry continues is no longer held');
  return {
    ok: false,
    error: {
      ...error,
      type: 'call_not_held',
      message: `The call to "${name}" that this retry continues is no longer running on this server: it ended, waited too long for the answers, or ran on another instance (a call that waits for answers stays on the process that started it). Call "${name}" again without requestState.`,
    },
  };
}

/**
 * A `prompts/get` or `resources/read` of revision 2026-07-28 whose prompt or resource asks the client
 * (`mcp.elicit/sample/listRoots` in its `get` or `read`): the same rounds as a tool's, with the state
 * bound to the prompt (or the URI), its arguments and the caller. `get` runs it with the request's
 * context as its state, again each round (a get or a read may be repeated).
 *
 * @example
 * const answer = await offeringRounds('prompt', name, args, ctx, context, states, () => registry.getPrompt(name, args, options));
 */
export async function offeringRounds<T>(
  kind: 'prompt' | 'resource',
  name: string,
  args: unknown,
  ctx: ServerContext,
  context: McpRequestContext,
  states: RequestStateSealer,
  get: () => Promise<T>,
): Promise<T | InputRequiredResult> {
  const caller = principalOf(context);
  const binding = bindingFor(
    `${kind}:${name}`,
    args,
    undefined,
    caller === undefined ? undefined : principalKey(caller),
  );
  const sealed = ctx.mcpReq.requestState<unknown>();
  let carried: CarriedState = {};
  if (sealed !== undefined) {
    const opened = await states.consumeShared(sealed, binding);
    if (!opened.ok) {
      if (UNREADABLE.has(opened.code)) throw unreadable(name, opened.message, opened.code);
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, opened.message, {
        requestState: opened.code,
      });
    }
    carried = carriedOf(opened.data);
  }
  const round = new InputRound(
    context.clientCapabilities,
    carried.answered ?? [],
    carried.asked ?? [],
    ctx.mcpReq.inputResponses,
  );
  useInputRound(context, round);
  let answer: T | undefined;
  let failure: unknown;
  try {
    answer = await get();
  } catch (error) {
    failure = error;
  }
  checkRound(name, round);
  const asked = round.asked;
  if (asked.length === 0) {
    if (failure !== undefined) throw failure;
    return answer as T;
  }
  const outcome = nextRound(name, states, binding, { answered: [...round.answered], asked }, round);
  if ('envelope' in outcome) {
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      outcome.envelope.ok ? '' : outcome.envelope.error.message,
    );
  }
  return outcome.inputRequired;
}

/** Refuses a round that needed an undeclared capability (-32021) or got an answer of the wrong kind (-32602). */
function checkRound(name: string, round: InputRound): void {
  const missing = round.missingCapabilities;
  if (missing) throw missingCapability(name, missing);
  const misanswered = round.misanswered;
  if (misanswered) throwMisanswered(name, misanswered);
}

/** Refuses an answer of another kind than its question, or a form's content the form does not allow (-32602). */
function throwMisanswered(name: string, misanswered: MisansweredInput): never {
  if (misanswered.issue !== undefined) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `inputResponses.${misanswered.key} accepts the form with content that does not match its requestedSchema (${misanswered.issue}). Answer with content the form allows, or call again without requestState to start over.`,
      { key: misanswered.key, issue: misanswered.issue },
    );
  }
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `inputResponses.${misanswered.key} answers ${misanswered.received}, but "${name}" asked ${inputMethod(misanswered.kind)} under that key. Answer each input request with a result of its own method, or call again without requestState to start over.`,
    { key: misanswered.key, expected: inputMethod(misanswered.kind), received: misanswered.received },
  );
}

/** What a state carries from one round to the next. */
interface CarriedState {
  /** Present when the approval form was asked: the rule that asked (null for none). */
  readonly rule?: string | null;
  /** Present when an approval was given in an earlier round: the rule it answered (null for none). */
  readonly granted?: string | null;
  readonly answered?: readonly AnsweredInput[];
  readonly asked?: readonly AskedInput[];
  /** Present when a held call waits for this retry: its id. */
  readonly held?: string;
}

function nextRound(
  name: string,
  states: RequestStateSealer,
  binding: RequestStateBinding,
  carried: CarriedState,
  round: InputRound,
): ModernOutcome {
  let requestState: string;
  try {
    requestState = states.seal(binding, {
      ...(carried.granted === undefined ? {} : { granted: carried.granted }),
      answered: carried.answered?.map(({ key, kind, response }) => [key, kind, response]),
      asked: carried.asked?.map(({ key, kind }) => [key, kind]),
    });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return {
      envelope: toolFailure(
        name,
        new Error(
          `The answers "${name}" has collected are too long to carry to its next question; ask for shorter answers (a smaller maxTokens, fewer fields) or fewer questions in one call.`,
        ),
      ),
    };
  }
  return { inputRequired: inputRequired({ inputRequests: round.requests, requestState }) };
}

const KINDS: readonly InputKind[] = ['elicitation', 'sampling', 'roots'];

// The data was sealed by this server, so only its own shapes can be there; anything else reads as none.
function carriedOf(data: unknown): CarriedState {
  if (typeof data !== 'object' || data === null) return {};
  const record = data as Record<string, unknown>;
  const ruleLike = (value: unknown) => value === null || typeof value === 'string';
  const entries = (value: unknown) => (Array.isArray(value) ? (value as unknown[]) : []);
  const kindOf = (value: unknown) => KINDS.find((kind) => kind === value);
  const answered: AnsweredInput[] = [];
  for (const entry of entries(record.answered)) {
    const [key, kind, response] = entries(entry);
    const known = kindOf(kind);
    if (typeof key === 'string' && known) answered.push({ key, kind: known, response });
  }
  const asked: AskedInput[] = [];
  for (const entry of entries(record.asked)) {
    const [key, kind] = entries(entry);
    const known = kindOf(kind);
    if (typeof key === 'string' && known) asked.push({ key, kind: known });
  }
  return {
    ...(ruleLike(record.rule) ? { rule: record.rule as string | null } : {}),
    ...(ruleLike(record.granted) ? { granted: record.granted as string | null } : {}),
    ...(typeof record.held === 'string' ? { held: record.held } : {}),
    answered,
    asked,
  };
}

function boundName(registry: Registry, name: string, state: unknown): string {
  const tool = registry.get(name);
  if (!tool) return name;
  const identity = toolIdentity(tool.contract, tool.meta, state);
  return `${name}#${digestOf([identity.source, identity.name, identity.definition]).slice(7, 31)}`;
}

const UNREADABLE = new Set<RequestStateRefusal['code']>(['malformed', 'unknown_key', 'tampered']);

// The sealer's words say what was wrong and what to do; the code is kept for programs.
function refused(name: string, refusal: RequestStateRefusal): Envelope {
  if (UNREADABLE.has(refusal.code)) throw unreadable(name, refusal.message, refusal.code);
  const { error } = permissionDeniedFailure(
    name,
    `the requestState this retry carries was refused (${refusal.code})`,
  );
  return { ok: false, error: { ...error, message: refusal.message } };
}

function unreadable(name: string, message: string, code = 'unknown_key'): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    message.startsWith('The requestState')
      ? message
      : `The requestState of this call to "${name}" cannot be read: ${message}. Call again without requestState to be asked afresh.`,
    { requestState: code },
  );
}

function missingCapability(name: string, missing: ClientCapabilities): MissingRequiredClientCapabilityError {
  const names = Object.keys(missing).join(', ');
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: missing },
    `"${name}" needs to ask the client (${names}), and this request's _meta "io.modelcontextprotocol/clientCapabilities" does not declare ${names}. Declare ${Object.keys(missing).length > 1 ? 'them' : 'it'} and answer the input requests, or call a tool that does not ask.`,
  );
}
