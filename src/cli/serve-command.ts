/** Serving a command's tools until a signal: the resources the flags name, `serveRegistry`, its messages. */
import { resolve } from 'node:path';
import { AuthConfigError, loadAuthConfig, type ResolvedAuthConfig } from '../auth/auth-config.js';
import type { UpstreamCallWrapper } from '../gateway/upstream.js';
import type { RegistryServer, ServedTools, ServeRegistryOptions } from '../mcp/index.js';
import type { Policy } from '../policy/policy.js';
import type { RegistryOptions } from '../registry/registry.js';
import type { PostgresStore } from '../store/index.js';
import { counted } from '../util/counted.js';
import type { ParsedArgs } from './args.js';
import { openAuditOption, openStoreOption } from './gate-options.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';
import { closeWithin } from './lifecycle.js';
import { openingFirst } from './opening-first.js';
import { servingFlags } from './serve-tools.js';
import { stopSignal } from './stop-signal.js';

/** How {@link serveTools} is called by a command. */
export interface ServeToolsOptions extends Pick<ServeRegistryOptions, 'fallbackApprover'> {
  /** The command's name, in messages (`serve`, `gateway`). */
  readonly command: string;
  readonly flags: ParsedArgs['flags'];
  readonly policy: Policy;
  /** The auth file when `--auth` is not given (the gateway config's `toolpact.auth`), absolute. */
  readonly auth?: string;
  /** `--search` is on without the flag (the gateway's config can ask for it), with this `--max-loaded`. */
  readonly search?: { readonly maxLoaded?: number };
  /**
   * Builds the tools; with `--otel`, `wrapUpstreamCall` makes a span of each upstream request. Over HTTP
   * `endpoint` is the MCP endpoint's path, with the auth configuration's `resource` under `--auth`.
   */
  readonly build: (
    registryOptions: RegistryOptions,
    telemetry: { readonly wrapUpstreamCall?: UpstreamCallWrapper },
    endpoint: { readonly path: string; readonly resource: string | undefined } | undefined,
    /** The shared store `--store` opened, if any. */
    store: PostgresStore | undefined,
  ) => Promise<ServedTools>;
}

/**
 * Maps the serving flags to `serveRegistry` (opening the audit log, the store and telemetry they
 * name) and serves until SIGINT, SIGTERM or (over stdio) the end of stdin; then closes it all.
 *
 * @example
 * return serveTools(io, { command: 'serve', flags, policy, build: async (options) => ({ registry: new Registry(options) }) });
 */
export async function serveTools(io: CliIo, options: ServeToolsOptions): Promise<0> {
  const { flags, command } = options;
  const mapped = servingFlags(flags, options.search);
  const { http } = mapped;
  const auth = http ? authOption(flags, options.auth, io.cwd) : undefined;
  if (http && !auth && !http.insecureNoAuth && !(await import('../mcp/index.js')).isLoopbackHost(http.host)) {
    throw new UsageError(
      `--host ${http.host} is reachable from the network, and no --auth is given: anyone who reaches the port could call the tools. Give --auth <file> (an OAuth resource server configuration; see docs/auth.md), or --insecure-no-auth when a proxy in front authenticates (every response then carries a Toolpact-Warning header).`,
    );
  }
  const stop = stopSignal();
  let audit: ReturnType<typeof openAuditOption>;
  let store: Awaited<ReturnType<typeof openStoreOption>>;
  let telemetry: Awaited<ReturnType<typeof import('../otel/index.js').startTelemetry>> | undefined;
  let server: RegistryServer | undefined;
  try {
    const mcp = await import('../mcp/index.js');
    const otel = flags.otel === true ? await import('../otel/index.js') : undefined;
    telemetry = otel
      ? await otel.startTelemetry({ serviceName: 'toolpact' }).catch((error: unknown) => {
          throw new UsageError(`--otel: ${error instanceof Error ? error.message : String(error)}`);
        })
      : undefined;
    audit = openAuditOption(flags.audit, io.cwd);
    store = await openStoreOption(flags.store, io, command, options.policy);
    const wrap = otel && telemetry ? { wrapUpstreamCall: otel.upstreamSpans(telemetry.tracer) } : {};
    if (telemetry) io.stderr(`toolpact ${command}: exporting OpenTelemetry to ${otlpEndpoint(io.env)}.\n`);
    let served: ServedTools | undefined;
    try {
      server = await mcp.serveRegistry(
        async (registryOptions) =>
          (served = await options.build(
            registryOptions,
            wrap,
            http ? { path: http.path ?? '/mcp', resource: auth?.resource } : undefined,
            store,
          )),
        {
          policy: options.policy,
          ...(audit ? { audit } : {}),
          ...(store ? { store } : {}),
          ...(otel && telemetry ? { telemetry: otel.servingTelemetry(telemetry) } : {}),
          ...mapped,
          ...(http && auth ? { http: { ...http, auth } } : {}),
          ...(options.fallbackApprover ? { fallbackApprover: options.fallbackApprover } : {}),
          env: io.env,
          ...(http
            ? {}
            : {
                stdin: (tools) =>
                  tools.begin || tools.ready ? openingFirst(process.stdin, tools) : process.stdin,
              }),
        },
      );
    } catch (error) {
      if (error instanceof mcp.RequestStateKeyError) throw new UsageError(error.message);
      if (!(error instanceof mcp.ServeRegistryError)) throw error;
      if (error.code === 'cannot_listen' || error.code === 'invalid_auth')
        throw new UsageError(error.message);
      const which =
        command === 'serve' ? 'the module does not export. Its tools:' : 'is not among the served tools:';
      throw new UsageError(
        `--always-loaded names "${error.detail.tool}", which ${which} ${error.detail.served?.join(', ')}.`,
      );
    }
    const { registry, search } = server;
    const count = !search
      ? counted((served?.listing ?? registry).schemas().length, 'tool')
      : http?.stateless
        ? `${counted(registry.size, 'tool')} (${search.stateless.schemas().length} listed, call_tool among them)`
        : `${counted(registry.size, 'tool')} (${search.activeTools().length} listed until a search loads more)`;
    if (!http) {
      io.stderr(`toolpact ${command}: ${count} on stdio.\n`);
      await Promise.race([server.closed, stop.signalled]);
      return 0;
    }
    if (server.requestState.ephemeral) {
      io.stderr(
        `toolpact ${command}: no TOOLPACT_STATE_KEY, so approvals of 2026-07-28 clients are sealed with a key of this process only (another replica, or this one after a restart, cannot complete them). Set TOOLPACT_STATE_KEY to 32 random bytes (openssl rand -hex 32) on every replica.\n`,
      );
    }
    if (auth) {
      io.stderr(
        `toolpact ${command}: authenticating requests as the resource ${auth.resource} (issuers: ${auth.issuers.map((each) => each.issuer).join(', ')}).\n`,
      );
    } else if (!mcp.isLoopbackHost(http.host)) {
      io.stderr(
        `toolpact ${command}: listening on ${http.host}, reachable from the network, with no authentication (--insecure-no-auth); every response carries a Toolpact-Warning header. Put it behind a proxy that authenticates, or give --auth.\n`,
      );
    }
    // Before the endpoint line, which those who start the server wait for.
    if (auth && store && server.url) {
      io.stderr(
        `toolpact ${command}: the store's approvals at ${server.url.replace(/\/$/, '')}/approvals (toolpact approvals … --server ${server.url}).\n`,
      );
    }
    io.stderr(
      `toolpact ${command}: ${count} at ${server.url} (${http.stateless ? 'stateless' : 'sessions'}).\n`,
    );
    io.stderr(`toolpact ${command}: ${await stop.signalled}, stopping.\n`);
    return 0;
  } finally {
    stop.dispose();
    await closeWithin(server, io, command, command === 'serve' ? undefined : 'the served tools');
    // After the served tools, so that the records of their last calls are kept.
    audit?.close();
    await store?.close();
    await telemetry?.shutdown();
  }
}

/** The auth configuration `--auth` (else the command's own file) names, read and checked. */
function authOption(
  flags: ParsedArgs['flags'],
  fallback: string | undefined,
  cwd: string,
): ResolvedAuthConfig | undefined {
  const file = typeof flags.auth === 'string' ? resolve(cwd, flags.auth) : fallback;
  if (file === undefined) return undefined;
  try {
    return loadAuthConfig(file);
  } catch (error) {
    if (error instanceof AuthConfigError) throw new UsageError(`--auth: ${error.message}`);
    throw error;
  }
}

/** Where the traces go, as the OTLP exporters read the environment. */
function otlpEndpoint(env: { readonly [name: string]: string | undefined }): string {
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318';
}
