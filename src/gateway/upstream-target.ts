import { dirname } from 'node:path';
import type { McpServerTarget } from '../mcp/connect.js';
import type { GatewayServer } from './config/types.js';
import { defaultNpxCacheDir } from './npx.js';
import { sandboxedCommand } from './sandbox-server.js';

/** What {@link upstreamTarget} needs beyond the server's entry. */
export interface UpstreamTargetContext {
  /** The config's absolute path: a sandboxed server's packages are looked for from its folder. */
  readonly configFile: string;
  /** The bubblewrap program (default: found on the PATH) and where installed npx packages are kept. */
  readonly sandbox?: { readonly bwrap?: string; readonly packageCache?: string };
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
 * Whether two entries of one server start the same process: only overrides, prefixes or search
 * settings differ, so a saved config rebuilds its tools without restarting it.
 *
 * @example
 * if (!sameProcess(running.spec, next)) await restart(next);
 */
export function sameProcess(a: GatewayServer, b: GatewayServer): boolean {
  return (
    a.enabled === b.enabled &&
    JSON.stringify([a.target, a.sandbox ?? null, a.timeoutMs ?? null]) ===
      JSON.stringify([b.target, b.sandbox ?? null, b.timeoutMs ?? null])
  );
}
