import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/client';
import { carryContent, carryOnError } from '../content/carried.js';
import type { JsonSchema, ToolCategory, ToolContract } from '../contract/index.js';
import type { AnyTool } from '../contract/tool.js';
import { type BrokenDefault, dropBrokenDefaults } from '../define/broken-defaults.js';
import { createTool } from '../define/create-tool.js';
import { sanitizeMessage } from '../dispatch/sanitize.js';
import { ToolError } from '../dispatch/tool-error.js';
import { upgradeSchema } from '../schema/upgrade-schema.js';
import { traceContextOf } from '../util/trace-context.js';
import { effectsFromAnnotations } from './infer-category.js';
import { signInRequiredOf } from './oauth/oauth-provider.js';
import { remoteResultValue } from './remote-result.js';

/** One remote `tools/call`, as a {@link RemoteToolOptions.call} sends it. */
export interface RemoteCall {
  /** The tool's name on the server. */
  readonly remoteName: string;
  readonly arguments: Record<string, unknown>;
  /** Request `_meta` to send (the caller's W3C trace context), when there is any. */
  readonly meta: { readonly [key: string]: string } | undefined;
  readonly signal: AbortSignal;
  /** The `state` the registry call was given. */
  readonly state: unknown;
  /** The tool's local name. */
  readonly tool: string;
}

/** How {@link remoteTool} builds a toolpact tool for one tool of an MCP server. */
export interface RemoteToolOptions {
  /** The local name. */
  readonly name: string;
  /** The server's label, named in errors and in `meta.server`. */
  readonly server: string;
  /** `meta.source`, e.g. `mcp:github`. */
  readonly source: string;
  readonly category: ToolCategory;
  /** True when the category was inferred from the annotations (display only), not given. */
  readonly inferredCategory: boolean;
  /** The description the model sees (the server's own, an override, or a stated placeholder). */
  readonly description: string;
  /** The title the model sees, when it differs from the server's. */
  readonly title?: string;
  /** Longest wait for one call, in milliseconds: past it the call is `timeout` and its signal aborts. */
  readonly timeoutMs?: number;
  /** Further `meta` entries (e.g. the gateway's `upstream`). */
  readonly meta?: { readonly [key: string]: unknown };
  /** Sends the call; a rejection that is not a {@link ToolError} becomes `mcp_protocol_error`. */
  readonly call: (call: RemoteCall) => Promise<CallToolResult>;
}

/**
 * A toolpact tool for one remote MCP tool: the remote input schema (upgraded to draft 2020-12, its
 * broken defaults dropped) becomes the contract's parameters, the annotations its effects, and a call
 * goes to `options.call` with the caller's trace context. A remote `isError` result is a failure
 * envelope; either way the upstream's result rides on the envelope, unseen, for the MCP face to send
 * as it came (`createMcpServer`); a refusal for input this host does not give (sampling, roots, or elicitation without a
 * handler) is `mcp_input_unsupported`. Throws `ToolDefinitionError` for a schema that cannot be used.
 *
 * @example
 * const { tool } = remoteTool(listed, {
 *   name: 'fs_read_file', server: 'fs', source: 'mcp:fs', category: 'read', inferredCategory: true,
 *   description: listed.description ?? 'Reads a file.',
 *   call: ({ remoteName, arguments: args, signal }) => client.callTool({ name: remoteName, arguments: args }, { signal }),
 * });
 */
export function remoteTool(
  remote: McpTool,
  options: RemoteToolOptions,
): { tool: AnyTool; dropped: readonly BrokenDefault[] } {
  // A server's broken default would be filled in and then refuse a call that rightly left the field out.
  const input = dropBrokenDefaults(withObjectType(upgradeSchema(remote.inputSchema as JsonSchema)));
  const output = remote.outputSchema
    ? dropBrokenDefaults(upgradeSchema(remote.outputSchema as JsonSchema), '$.returns.schema')
    : undefined;
  const title = options.title ?? remote.title ?? remote.annotations?.title;
  const contract: Omit<ToolContract, 'effects'> & { effects: ToolContract['effects'] } = {
    name: options.name,
    ...(title ? { title } : {}),
    description: options.description,
    parameters: input.schema,
    ...(output ? { returns: { schema: output.schema } } : {}),
    category: options.category,
    effects: effectsFromAnnotations(remote.annotations),
  };
  const remoteName = remote.name;
  const { server, call } = options;
  const tool = createTool(contract, {
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    meta: {
      source: options.source,
      server,
      remoteName,
      // The call runs on the other server: it must not be sent twice to collect the client's answers.
      inputRounds: 'held',
      ...(options.inferredCategory ? { inferredCategory: true } : {}),
      ...(remote.annotations ? { annotations: remote.annotations } : {}),
      ...options.meta,
    },
    async execute(args, { signal, state }) {
      let result: CallToolResult;
      // The caller's trace goes with the call (W3C trace context in `_meta`, both eras).
      const trace = traceContextOf(state);
      try {
        result = await call({
          remoteName,
          arguments: args as Record<string, unknown>,
          meta: trace ? { ...trace } : undefined,
          signal,
          state,
          tool: options.name,
        });
      } catch (error) {
        if (signal.aborted || error instanceof ToolError) throw error;
        throw remoteCallError(error, server, remoteName);
      }
      // The envelope shows the value; the MCP face sends the upstream's result as it came (limited).
      let value: unknown;
      const sent = withoutHopMeta(result);
      try {
        value = remoteResultValue(result, server);
      } catch (error) {
        throw error instanceof ToolError ? carryOnError(error, sent) : error;
      }
      return carryContent(value, sent);
    },
  });
  return { tool, dropped: [...input.dropped, ...(output?.dropped ?? [])] };
}

/** The `details` of an `mcp_input_unsupported` failure: the server, and what it needed (`elicitation`, `sampling`, `roots`). */
export interface InputUnsupportedDetails {
  readonly server: string;
  readonly asked: readonly string[];
}

const INPUT_KINDS: Record<string, string> = {
  elicitation: 'elicitation (a question to the user)',
  sampling: "sampling (a completion from the host's model)",
  roots: "roots (the host's directories)",
};

/**
 * What a failed remote call becomes. A server that needs input toolpact does not give (sampling and
 * roots, deprecated in 2026-07-28; elicitation without `onElicitation`) is `mcp_input_unsupported`,
 * naming what it asked for; anything else is `mcp_protocol_error`.
 *
 * @example
 * throw remoteCallError(error, 'fs', 'read_file');
 */
export function remoteCallError(error: unknown, server: string, remoteName: string): ToolError {
  const reason = error instanceof Error ? error.message : String(error);
  const details = { server };
  const record = (error ?? {}) as { code?: unknown; data?: unknown };
  let asked: string[] = [];
  // -32021: the server needs a client capability we did not declare (checked before it asks).
  if (record.code === -32021) {
    const required = (record.data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
    asked = required && typeof required === 'object' ? Object.keys(required) : [];
  } else if (record.code === 'CAPABILITY_NOT_SUPPORTED') {
    // The server asked anyway: the SDK names the method it has no handler for.
    asked = Object.keys(INPUT_KINDS).filter((kind) =>
      reason.includes(kind === 'roots' ? 'roots/list' : `${kind}/`),
    );
  }
  if (asked.length > 0) {
    const names = asked.map((kind) => INPUT_KINDS[kind] ?? kind).join(' and ');
    const way = asked.every((kind) => kind === 'elicitation')
      ? 'Import it with onElicitation to answer such questions.'
      : 'toolpact does not give imported servers sampling or roots (both deprecated in MCP 2026-07-28); use a tool that does not need them.';
    return new ToolError(
      `The MCP server "${server}" needs ${names} to run "${remoteName}", which this host does not provide. ${way}`,
      { type: 'mcp_input_unsupported', details: { ...details, asked } satisfies InputUnsupportedDetails },
    );
  }
  const signIn = signInRequiredOf(error);
  if (signIn) {
    return new ToolError(
      `The MCP server "${server}" needs the user to sign in before "${remoteName}" can run. Ask the user to run: toolpact gateway login ${signIn.server}, then call the tool again.`,
      {
        type: 'auth_required',
        retryable: false,
        details: { ...details, login: `toolpact gateway login ${signIn.server}` },
      },
    );
  }
  return new ToolError(`The MCP server "${server}" did not complete the call: ${sanitizeMessage(reason)}`, {
    type: 'mcp_protocol_error',
    details,
  });
}

/**
 * The result without the protocol's own `_meta` keys (`io.modelcontextprotocol/…`: the upstream's
 * server info, its revision), which describe the hop to the upstream, not the result; the served
 * connection sets its own.
 */
function withoutHopMeta(result: CallToolResult): CallToolResult {
  const meta = result._meta;
  if (!meta || !Object.keys(meta).some((key) => key.startsWith(PROTOCOL_META_PREFIX))) return result;
  const kept = Object.fromEntries(
    Object.entries(meta).filter(([key]) => !key.startsWith(PROTOCOL_META_PREFIX)),
  );
  const { _meta: _hop, ...rest } = result;
  return Object.keys(kept).length > 0 ? { ...rest, _meta: kept } : rest;
}

const PROTOCOL_META_PREFIX = 'io.modelcontextprotocol/';

function withObjectType(schema: JsonSchema): JsonSchema {
  return schema.type === undefined ? { type: 'object', ...schema } : schema;
}
