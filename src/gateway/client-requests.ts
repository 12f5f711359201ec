import { pathToFileURL } from 'node:url';
import type { ClientCapabilities, LoggingMessageNotification } from '@modelcontextprotocol/client';
import type { ToolContract } from '../contract/index.js';
import type { GateDecision } from '../dispatch/gate.js';
import { sanitizeMessage } from '../dispatch/sanitize.js';
import { supportsFormElicitation } from '../mcp/client-capabilities.js';
import type { McpClientChannel } from '../mcp/client-channel.js';
import type {
  McpAsked,
  McpElicitationRequest,
  McpElicitationResult,
  McpRootsResult,
  McpSamplingRequest,
  McpSamplingResult,
} from '../mcp/connect.js';
import type { McpRequestContext } from '../mcp/request-context.js';
import type { GatewayServer } from './config/types.js';
import type { GatewayEventSinks } from './gateway-events.js';
import type { OperationGate } from './operation-gate.js';
import { visible } from './terminal-text.js';
import type { CallerRoute, UpstreamCallers } from './upstream-callers.js';

/** What an upstream's requests back to the client are answered with. */
export interface ClientRequestHandlers {
  readonly onSampling: (request: McpSamplingRequest, asked: McpAsked) => Promise<McpSamplingResult>;
  readonly onElicitation: (request: McpElicitationRequest, asked: McpAsked) => Promise<McpElicitationResult>;
  /** Absent when the config gives the server no roots: the gateway then offers none. */
  readonly onRoots?: (asked: McpAsked) => Promise<McpRootsResult>;
  readonly onLog: (params: LoggingMessageNotification['params']) => void;
  /**
   * What a revision 2026-07-28 server is told it may ask while serving `caller`'s request: only what
   * the gateway passes on and that client can answer, so the server decides as if that client called it.
   */
  readonly capabilitiesFor: (caller: McpRequestContext) => ClientCapabilities;
}

/** What {@link clientRequestHandlers} needs of the running gateway. */
export interface ClientRequestsContext {
  /** The server as the config in force describes it. */
  readonly spec: () => GatewayServer;
  readonly callers: UpstreamCallers;
  readonly gate: OperationGate;
  readonly sinks: GatewayEventSinks;
  /** The one client of a stdio gateway, which what a server asks outside any call goes to. */
  readonly oneClient?: () => McpClientChannel | undefined;
}

/**
 * Who a server's request goes to: the client request whose call it serves (`call`), or, outside any
 * call, the one client of a stdio gateway (`client`); undefined when nobody.
 */
type Recipient =
  | { readonly call: McpRequestContext; readonly remoteName: string }
  | { readonly client: McpClientChannel };

function recipientOf(route: CallerRoute, context: ClientRequestsContext): Recipient | undefined {
  if (route.kind === 'call') {
    const call = route.caller.context;
    return call ? { call, remoteName: route.caller.remoteName } : undefined;
  }
  const client = route.kind === 'none' ? context.oneClient?.() : undefined;
  return client ? { client } : undefined;
}

/**
 * What a recipient is asked through. A call of revision 2026-07-28 asks in the rounds of its own
 * request (the run waits, held, for the client's retry), under the key the server asked with.
 */
function askerOf(recipient: Recipient, asked: McpAsked): McpClientChannel {
  if (!('call' in recipient)) return recipient.client;
  const { call } = recipient;
  const options = asked.key === undefined ? undefined : { key: asked.key };
  return {
    get capabilities() {
      return call.clientCapabilities;
    },
    get canElicit() {
      return call.era === 'modern' ? supportsFormElicitation(call.clientCapabilities) : call.canElicit;
    },
    sample: (params) => call.sample(params, options),
    elicit: (params) => call.elicit(params, options),
    listRoots: () => call.listRoots(options),
  };
}

/** The audit outcome of sampling sent outside any call, or while several clients' calls run. */
export const SAMPLING_UNROUTED = 'sampling_unrouted';
/** The audit outcome of sampling for a client that cannot answer it (no `sampling`, or revision 2026-07-28). */
export const SAMPLING_UNSUPPORTED = 'sampling_unsupported';
/** The audit outcome of sampling the client was asked and failed to answer. */
export const SAMPLING_FAILED = 'sampling_failed';

const LOG_TEXT = 2_000;

/**
 * How the gateway answers what an upstream server asks of the client: sampling goes to the client
 * that made the call the server is serving, only as the policy allows (target `sampling`, an `ask` by
 * default), and is audited with the server's name; elicitation goes to that client, its message
 * naming the server; `roots/list` is answered the config's roots (the client's own only under
 * `roots: "client"`); log messages reach that client tagged with the server's name. Nothing goes to
 * a client whose call the request does not serve: sent outside any call, it goes to the one client of
 * a stdio gateway (`oneClient`) and is refused elsewhere; while calls of several clients run on the
 * server, it is refused.
 *
 * @example
 * const handlers = clientRequestHandlers('everything', { spec, callers, gate, sinks });
 */
export function clientRequestHandlers(server: string, context: ClientRequestsContext): ClientRequestHandlers {
  const { callers } = context;
  const answer = context.spec().rootsAnswer;
  return {
    onSampling: (request, asked) => sample(server, request, asked, context),
    onElicitation: async (request, asked) => {
      const recipient = recipientOf(callers.route(), context);
      const client = recipient && askerOf(recipient, asked);
      // A client that cannot be asked gets the server a decline: it can go on without the answer.
      if (!client?.canElicit || request.mode === 'url') return { action: 'decline' };
      return client.elicit({
        message: `The MCP server "${server}" asks: ${request.message}`,
        requestedSchema: request.requestedSchema,
        ...(request._meta ? { _meta: request._meta } : {}),
      });
    },
    ...(answer === 'none' ? {} : { onRoots: (asked) => roots(server, asked, context) }),
    capabilitiesFor: (caller) => {
      const declared = caller.clientCapabilities;
      const elicits = caller.era === 'modern' ? supportsFormElicitation(declared) : caller.canElicit;
      const rootsAnswer = context.spec().rootsAnswer;
      return {
        ...(elicits ? { elicitation: { form: {} } } : {}),
        ...(declared?.sampling ? { sampling: {} } : {}),
        ...(rootsAnswer === 'config' || (rootsAnswer === 'client' && declared?.roots) ? { roots: {} } : {}),
      };
    },
    onLog: (params) => {
      const route = callers.route();
      const client = route.kind === 'call' ? route.caller.context : undefined;
      if (!client) return;
      const text = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
      const said = visible(String(text).slice(0, LOG_TEXT));
      client
        .log(params.level, params.logger ? `(${visible(params.logger)}) ${said}` : said, server)
        .catch(() => {});
    },
  };
}

/** Sampling of one upstream request: routed, checked against the client's capabilities, gated, audited. */
async function sample(
  server: string,
  request: McpSamplingRequest,
  asked: McpAsked,
  context: ClientRequestsContext,
): Promise<McpSamplingResult> {
  const startedAt = Date.now();
  const route = context.callers.route();
  const recipient = recipientOf(route, context);
  const call = recipient && 'call' in recipient ? recipient.call : undefined;
  const operation = {
    target: 'sampling' as const,
    tool: SAMPLING_CONTRACT,
    meta: { source: `mcp:${server}`, server },
    arguments: samplingArguments(server, request),
    callId: call ? String(call.requestId) : undefined,
    state: call,
  };
  const record = (outcome: string, decision: GateDecision | undefined) =>
    context.sinks.audit?.({
      tool: SAMPLING_CONTRACT.name,
      category: SAMPLING_CONTRACT.category,
      callId: operation.callId,
      arguments: operation.arguments,
      decision,
      outcome,
      startedAt,
      durationMs: Date.now() - startedAt,
      state: call,
    });
  if (!recipient) {
    record(SAMPLING_UNROUTED, undefined);
    const message = unroutedMessage(server, route);
    context.sinks.log(`${server}: ${message}`);
    throw new Error(message);
  }
  const unsupported = samplingUnsupported(recipient);
  if (unsupported) {
    record(SAMPLING_UNSUPPORTED, undefined);
    throw new Error(
      `The gateway cannot pass "sampling/createMessage" from "${server}" on: ${unsupported}. Finish the call without a completion from the client's model.`,
    );
  }
  const { failure, decision } = await context.gate(operation, {
    ...(call ? { state: call, signal: call.signal } : {}),
  });
  if (failure) {
    record(failure.error.type, decision);
    throw new Error(
      `The gateway's policy refused "sampling/createMessage" from "${server}": ${sanitizeMessage(failure.error.message)} Finish the call without a completion from the client's model.`,
    );
  }
  try {
    const result = await askerOf(recipient, asked).sample(request);
    record('ok', decision);
    return result;
  } catch (error) {
    record(SAMPLING_FAILED, decision);
    throw new Error(
      `The client did not answer "sampling/createMessage" from "${server}": ${sanitizeMessage(error instanceof Error ? error.message : String(error))}`,
    );
  }
}

/** Why a recipient cannot be sent sampling, or undefined when it can. */
function samplingUnsupported(recipient: Recipient): string | undefined {
  if ('client' in recipient) {
    return recipient.client.capabilities?.sampling ? undefined : 'the client did not declare sampling';
  }
  const { call, remoteName } = recipient;
  // On revision 2026-07-28 the call's own round refuses what the client did not declare (-32021).
  if (call.era === 'modern') return undefined;
  return call.clientCapabilities?.sampling
    ? undefined
    : `the client that called "${remoteName}" did not declare sampling`;
}

function unroutedMessage(server: string, route: CallerRoute): string {
  const why =
    route.kind === 'ambiguous'
      ? 'calls of several clients are running on this server, and the request does not say which one it serves'
      : 'it came outside any tool call, so no client asked for it';
  return `The gateway refuses "sampling/createMessage" from "${server}": ${why}. Ask for sampling only while serving a tools/call.`;
}

/**
 * What the policy reads of a sampling request: who asks, how much, and the shape of the conversation
 * (never its text: rules test who and how much, and the audit keeps no conversation).
 */
function samplingArguments(server: string, request: McpSamplingRequest): Record<string, unknown> {
  return {
    server,
    maxTokens: request.maxTokens,
    ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
    messages: Array.isArray(request.messages) ? request.messages.length : 0,
  };
}

/** The contract that stands for a sampling request before the gate. */
const SAMPLING_CONTRACT: ToolContract = Object.freeze({
  name: 'sampling',
  description: "A completion an MCP server behind the gateway asks of the client's model.",
  parameters: { type: 'object' },
  category: 'read',
  effects: Object.freeze({ readOnly: true, destructive: false, idempotent: false, openWorld: true }),
});

/** The roots a server is answered: the config's, or the client's own under `roots: "client"`. */
async function roots(
  server: string,
  asked: McpAsked,
  context: ClientRequestsContext,
): Promise<McpRootsResult> {
  const spec = context.spec();
  if (spec.rootsAnswer === 'config') {
    return { roots: spec.roots.map((root) => ({ uri: pathToFileURL(root).href })) };
  }
  if (spec.rootsAnswer === 'none') return { roots: [] };
  const recipient = recipientOf(context.callers.route(), context);
  if (!recipient) {
    throw new Error(
      `The gateway passes the client's roots to "${server}" only while it serves one of that client's tool calls; ask for roots/list during a tools/call.`,
    );
  }
  return askerOf(recipient, asked).listRoots();
}
