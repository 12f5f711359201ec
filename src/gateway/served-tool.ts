import type { Tool as McpTool } from '@modelcontextprotocol/client';
import type { JsonSchema } from '../contract/index.js';
import type { AnyTool } from '../contract/tool.js';
import { createTool } from '../define/create-tool.js';
import type { BeforeCallHook } from '../dispatch/gate.js';
import { ToolError } from '../dispatch/tool-error.js';
import { principalOf } from '../dispatch/tool-identity.js';
import { inferCategory } from '../mcp/infer-category.js';
import { remoteTool } from '../mcp/remote-tool.js';
import { type McpRequestContext, mcpContextOf } from '../mcp/request-context.js';
import type { GatewayServer } from './config/types.js';
import type { WithheldItem } from './plan-catalog.js';
import type { PlannedTool, WithheldTool } from './plan-tools.js';
import { upstreamPrincipalId } from './principal-upstreams.js';
import { ITEM_WITHHELD, withheldError } from './served-resource.js';
import { gatewaySignInError } from './sign-in-required.js';
import type { TeamUpstreams } from './team-upstreams.js';
import type { Upstream } from './upstream.js';

/** Where a withheld tool's call ends: the envelope type a client sees. */
export const DEFINITION_CHANGED = 'tool_definition_changed';

/** What a served tool needs from the running gateway. */
export interface ServedToolContext {
  /** The server as it is now: a config change may have restarted it as a new upstream; undefined when disabled. */
  readonly upstream: (server: string) => Upstream | undefined;
  /** Lines for the operator. */
  readonly log: (line: string) => void;
  /** A team gateway's per-person upstreams: an authenticated caller's call goes through its pool. */
  readonly team?: TeamUpstreams;
}

/**
 * The registry tool for a planned tool: the upstream tool with the config's overrides, calling the
 * server as it is at the time of the call; or, for a withheld tool, its stand-in that refuses every call.
 *
 * @example
 * for (const planned of planTools(input).tools) registry.register(servedTool(planned, spec, context));
 */
export function servedTool(planned: PlannedTool, spec: GatewayServer, context: ServedToolContext): AnyTool {
  if (planned.withheld) return withheldTool(planned.withheld);
  const { remote, override, name: local } = planned;
  const { log } = context;
  const described = override.description ?? remote.description?.trim();
  const inputSchema = override.parameters
    ? describeParameters(remote.inputSchema as JsonSchema, override.parameters, (path) =>
        log(
          `${spec.name}: toolpact.servers.${spec.name}.tools.${remote.name}.parameters names "${path}", which its input schema does not have.`,
        ),
      )
    : remote.inputSchema;
  return remoteTool(
    { ...remote, inputSchema: inputSchema as McpTool['inputSchema'] },
    {
      name: local,
      server: spec.name,
      source: `mcp:${spec.name}`,
      category: override.category ?? inferCategory(remote.name, remote.annotations),
      inferredCategory: override.category === undefined,
      description:
        described ||
        `${remote.title ?? remote.annotations?.title ?? remote.name} (the MCP server "${spec.name}" gives no description).`,
      ...(override.title ? { title: override.title } : {}),
      ...(spec.timeoutMs ? { timeoutMs: spec.timeoutMs } : {}),
      // The gate reads this server's relative paths against its roots.
      meta: { gateway: true, roots: spec.roots },
      call: (call) => {
        const upstream = context.upstream(spec.name);
        if (!upstream) {
          throw new ToolError(`The MCP server "${spec.name}" is disabled in the gateway's config.`, {
            type: 'mcp_server_unavailable',
            details: { server: spec.name },
          });
        }
        // An authenticated caller reaches a server that signs in as themselves, never as the local user.
        const caller = principalOf(call.state);
        const pool = caller ? context.team?.pool(spec.name) : undefined;
        const sent =
          pool && caller
            ? pool.call(upstreamPrincipalId(caller), call.remoteName, call.arguments, call.signal, call.meta)
            : upstream.call(call.remoteName, call.arguments, {
                signal: call.signal,
                ...(call.meta ? { meta: call.meta } : {}),
                ...withCaller(call.state),
              });
        return sent.catch((error: unknown) => {
          const gatewayUrl = pool ? context.team?.publicUrl : undefined;
          throw (
            gatewaySignInError(error, {
              server: spec.name,
              remoteName: call.remoteName,
              ...(gatewayUrl ? { gatewayUrl } : {}),
            }) ?? error
          );
        });
      },
    },
  ).tool;
}

/** The client's request a call came with, so that what the server sends back reaches that client. */
function withCaller(state: unknown): { readonly caller?: McpRequestContext } {
  const caller = mcpContextOf(state);
  return caller ? { caller } : {};
}

/**
 * The gate, with withheld tools refused before it: a withheld tool's call is a deny of its own
 * (`rule: "withheld-definition"`), recorded as such, and answered `tool_definition_changed` so the
 * model can tell it from a policy's refusal.
 */
export function withheldPassGate(gate: BeforeCallHook | undefined): BeforeCallHook | undefined {
  return (request) => {
    if (request.meta.withheld !== true) return gate?.(request);
    // A withheld resource or prompt: its own refusal, recorded as the same deny.
    if (request.target === 'resource' || request.target === 'prompt') {
      const item = request.meta.withheldItem as WithheldItem;
      const { message } = withheldError(item);
      return {
        action: 'deny',
        rule: WITHHELD_RULE,
        reason: message,
        refusal: {
          type: ITEM_WITHHELD,
          message,
          details: { server: item.server, kind: item.kind, key: item.key, reason: item.reason },
        },
      };
    }
    const withheld = request.meta as unknown as WithheldMeta;
    const message = withheldMessage(withheld);
    return {
      action: 'deny',
      rule: WITHHELD_RULE,
      reason: message,
      refusal: {
        type: DEFINITION_CHANGED,
        message,
        details: { server: withheld.server, remoteName: withheld.remoteName, reason: withheld.reason },
      },
    };
  };
}

/** The rule a withheld tool's refusal names in its envelope and in the audit. */
export const WITHHELD_RULE = 'withheld-definition';

interface WithheldMeta {
  readonly server: string;
  readonly remoteName: string;
  readonly reason: WithheldTool['reason'];
}

function withheldMessage(withheld: WithheldMeta): string {
  const why =
    withheld.reason === 'changed'
      ? `The definition of "${withheld.remoteName}" on the MCP server "${withheld.server}" changed since it was pinned`
      : withheld.reason === 'hidden-instructions'
        ? `The definition of "${withheld.remoteName}" on the MCP server "${withheld.server}" carries instructions aimed at the model, so the gateway withholds this new tool until a person reviews it`
        : `"${withheld.remoteName}" is a new tool of the MCP server "${withheld.server}", and new tools are withheld until accepted`;
  return `${why}, so the gateway withholds it until an operator reviews the change and accepts it with "toolpact gateway pin". Do not retry; use another tool or tell the user.`;
}

/**
 * What stands in for a withheld tool: a neutral contract (the changed description never reaches the
 * model) whose every call is refused with `tool_definition_changed`.
 */
function withheldTool(withheld: WithheldTool): AnyTool {
  const meta: WithheldMeta = {
    server: withheld.server,
    remoteName: withheld.remoteName,
    reason: withheld.reason,
  };
  return createTool(
    {
      name: withheld.name,
      description: `Withheld by the gateway until an operator accepts its current definition. Calls are refused.`,
      parameters: { type: 'object' },
      category: 'read',
    },
    {
      meta: { source: `mcp:${withheld.server}`, ...meta, withheld: true },
      // The gate refuses every call first (withheldPassGate); this answers a registry without one.
      execute() {
        throw new ToolError(withheldMessage(meta), {
          type: DEFINITION_CHANGED,
          details: { server: withheld.server, remoteName: withheld.remoteName, reason: withheld.reason },
        });
      },
    },
  );
}

/**
 * The input schema with the config's parameter descriptions: each dotted path (`path`,
 * `options.depth`) names a property through nested `properties`; a path the schema lacks is reported.
 */
function describeParameters(
  schema: JsonSchema,
  descriptions: { readonly [path: string]: string },
  missing: (path: string) => void,
): JsonSchema {
  const copy = structuredClone(schema) as JsonSchema;
  for (const [path, description] of Object.entries(descriptions)) {
    let node: JsonSchema | undefined = copy;
    for (const key of path.split('.')) {
      const properties: unknown = node?.properties;
      const next =
        properties && typeof properties === 'object' && Object.hasOwn(properties, key)
          ? (properties as Record<string, unknown>)[key]
          : undefined;
      node = next && typeof next === 'object' ? (next as JsonSchema) : undefined;
      if (!node) break;
    }
    if (node) (node as { description?: string }).description = description;
    else missing(path);
  }
  return copy;
}
