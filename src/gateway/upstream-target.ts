import { dirname } from 'node:path';
import type { McpServerTarget } from '../mcp/connect.js';
import { LOCAL_PRINCIPAL, type McpOAuth } from '../mcp/oauth/oauth-provider.js';
import type { McpTokenStore } from '../mcp/oauth/token-store.js';
import type { GatewayServer } from './config/types.js';
import { defaultNpxCacheDir } from './npx.js';
import { sandboxedCommand } from './sandbox-server.js';

/** What {@link upstreamTarget} needs beyond the server's entry. */
export interface UpstreamTargetContext {
  /** The config's absolute path: a sandboxed server's packages are looked for from its folder. */
  readonly configFile: string;
  /** The bubblewrap program (default: found on the PATH) and where installed npx packages are kept. */
  readonly sandbox?: { readonly bwrap?: string; readonly packageCache?: string };
  /** Where sign-ins to remote servers are kept: without it, no server signs in. */
  readonly tokens?: McpTokenStore;
  /** Whose sign-ins are used. Default `local` (the person running the gateway). */
  readonly principal?: string;
}

/**
 * How a config entry becomes what an upstream starts or reaches: a URL with its headers, a command
 * line as given, or, for a sandboxed stdio server, the bubblewrap command that confines it. Returns a
 * function the upstream asks at every start; it throws, saying what to do, for what cannot start (an
 * `sse` server, a sandbox without bubblewrap or with an npx package not installed), so the server is
 * down rather than started unconfined.
 *
 * @example
 * new Upstream({ name: spec.name, target: upstreamTarget(spec, { configFile: config.file }), onTools });
 */
export function upstreamTarget(spec: GatewayServer, context: UpstreamTargetContext): () => McpServerTarget {
  return () => {
    const target = spec.target;
    if (target.kind !== 'stdio') {
      if (target.kind === 'sse') {
        throw new Error(
          'it is an "sse" server: the HTTP+SSE transport was replaced by Streamable HTTP in MCP 2025-03-26 and toolpact does not speak it. Give its Streamable HTTP URL with "type": "http".',
        );
      }
      return { url: target.url, headers: { ...target.headers } };
    }
    const command = {
      command: target.command,
      args: [...target.args],
      // The SDK adds a safe subset of ours (HOME, LOGNAME, PATH, SHELL, TERM, USER), never our secrets.
      env: { ...target.env },
      ...(target.cwd ? { cwd: target.cwd } : {}),
    };
    if (!spec.sandbox) return command;
    // Without bubblewrap, or with an npx package that is not installed, this throws a
    // SandboxUnavailableError saying what to do: the server is down, never started unconfined.
    const sandboxed = sandboxedCommand(command, spec.sandbox, {
      ...(context.sandbox?.bwrap ? { bwrap: context.sandbox.bwrap } : {}),
      searchFrom: [dirname(context.configFile), process.cwd()],
      cacheDir: context.sandbox?.packageCache ?? defaultNpxCacheDir(),
      server: spec.name,
      config: context.configFile,
    });
    return { command: sandboxed.command, args: sandboxed.args, env: sandboxed.env };
  };
}

/**
 * How a remote server signs in: its OAuth settings over the gateway's token store, kept under the
 * server's name; undefined for a stdio server, one with an `Authorization` header, or without a store.
 * The gateway gives no sign-in driver (it runs unattended); `gateway login` adds one.
 *
 * @example
 * const auth = upstreamAuth(spec, { configFile, tokens: fileTokenStore(config.tokens) });
 */
export function upstreamAuth(spec: GatewayServer, context: UpstreamTargetContext): McpOAuth | undefined {
  const target = spec.target;
  if (target.kind === 'stdio' || target.oauth === undefined || context.tokens === undefined) return undefined;
  const { clientId, clientSecret, clientMetadataUrl, issuer, scope } = target.oauth;
  return {
    store: context.tokens,
    server: spec.name,
    principal: context.principal ?? LOCAL_PRINCIPAL,
    ...(clientId !== undefined ? { clientId } : {}),
    ...(clientSecret !== undefined ? { clientSecret } : {}),
    ...(clientMetadataUrl !== undefined ? { clientMetadataUrl } : {}),
    ...(issuer !== undefined ? { issuer } : {}),
    ...(scope !== undefined ? { scope } : {}),
  };
}

/**
 * Whether two entries of one server start the same process: only overrides, prefixes or search
 * settings differ, so a saved config rebuilds its tools without restarting it.
 *
 * @example
 * if (!sameProcess(running.spec, next)) await restart(next);
 */
export function sameProcess(a: GatewayServer, b: GatewayServer): boolean {
  return (
    a.enabled === b.enabled &&
    JSON.stringify([a.target, a.sandbox ?? null, a.timeoutMs ?? null, a.rootsAnswer]) ===
      JSON.stringify([b.target, b.sandbox ?? null, b.timeoutMs ?? null, b.rootsAnswer])
  );
}
