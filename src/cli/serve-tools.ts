/** What `toolpact serve` and `toolpact gateway` share: serving a registry over stdio or HTTP. */
import { combineAuditSinks } from '../audit/audit-sink.js';
import type { UpstreamCallWrapper } from '../gateway/upstream.js';
import type { McpServerOptions, StdioServeOptions, ToolListing } from '../mcp/index.js';
import type { Policy } from '../policy/policy.js';
import { createPolicyGate } from '../policy/policy-gate.js';
import type { Registry, RegistryOptions } from '../registry/registry.js';
import type { PostgresStore } from '../store/index.js';
import { counted } from '../util/counted.js';
import type { FlagSpec, ParsedArgs } from './args.js';
import { openAuditOption } from './gate-options.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';
import { closeWithin } from './lifecycle.js';
import { openingFirst } from './opening-first.js';
import { stopSignal, wholeNumberFlag } from './stop-signal.js';

/** The flags of serving, as `parseArgs` takes them. */
export const SERVE_FLAGS: FlagSpec = {
  http: 'boolean',
  port: 'string',
  host: 'string',
  path: 'string',
  stateless: 'boolean',
  'allow-origin': 'string',
  'session-idle': 'string',
  'sessions-per-client': 'string',
  name: 'string',
  'page-size': 'string',
  policy: 'string',
  audit: 'string',
  store: 'string',
  otel: 'boolean',
  search: 'boolean',
  'always-loaded': 'string',
  'max-loaded': 'string',
};

/** The usage lines of the serving flags. */
export const SERVE_FLAG_USAGE = [
  '  --http          serve Streamable HTTP instead of stdio',
  '  --port <n>      HTTP port (default 3000; 0 picks a free one)',
  '  --host <addr>   HTTP address (default 127.0.0.1). Another address exposes the tools to the network.',
  '  --path <path>   HTTP endpoint path (default /mcp)',
  '  --stateless     no sessions for 2025 clients either: any replica can answer any request (they lose',
  '                  list_changed and elicitation). Revision 2026-07-28 requests never have a session.',
  '  --allow-origin  browser origins allowed besides loopback ones, comma-separated',
  '  --session-idle <s> close a 2025 session with no request open for this many seconds (default 1800)',
  '  --sessions-per-client <n> 2025 sessions one remote address holds (default 32); past it, its least',
  '                  recently used one closes. Behind a proxy every client has its address: raise it.',
  '  --name <name>   the server name clients see (default toolpact)',
  '  --page-size <n> tools per tools/list page (default 100)',
  '  --audit <file>  record each call in this audit log (JSON Lines; SQLite for .db, .sqlite, .sqlite3)',
  '  --store <url>   a postgres:// URL (or TOOLPACT_STORE): the audit log and the approval queue that',
  '                  every replica shares; each record is committed before the result is sent',
  '  --otel          export a span and metrics for every call, and the audit records as log records,',
  '                  over OTLP/HTTP as the OTEL_EXPORTER_OTLP_* environment variables say',
  '                  (default http://localhost:4318; OTEL_SERVICE_NAME names the service)',
  '  --search        list only the always-loaded tools and search_tools. A 2025 client with a session is',
  '                  listed what its searches load (notifications/tools/list_changed); a revision 2026-07-28',
  '                  client (and, with --stateless, every client) is listed call_tool too, which runs a',
  '                  found tool as that tool. Every tool stays callable.',
  '  --always-loaded tools listed from the start with --search, comma-separated',
  '  --max-loaded <n> searched tools listed at once with --search (default 20), least recently used out',
];

/** The tools to serve, built over the registry options (gate, approver, audit) the command prepared. */
export interface ServedTools {
  readonly registry: Registry;
  /** What clients are listed instead of every registered tool. */
  readonly listing?: ToolListing;
  /** Tools listed from the start with `--search`, besides those `--always-loaded` names. */
  readonly alwaysLoaded?: readonly string[];
  /** What to close when serving ends (the registry by default). */
  readonly close?: () => Promise<void>;
  /**
   * Starts what the tools call (the gateway's MCP servers). Over stdio it is called at the client's
   * first message other than `server/discover`, so that a process a 2026-07-28 client starts only to
   * learn the era starts nothing; over HTTP, at once.
   */
  readonly begin?: () => void;
  /**
   * Resolves when the listing is worth answering. Over stdio, `initialize`, `server/discover` and
   * `ping` are answered at once; every later message waits for it, in order. Over HTTP, and with
   * `--search`, serving waits for it.
   */
  readonly ready?: () => Promise<void>;
}

/** How {@link serveTools} is called by a command. */
export interface ServeToolsOptions {
  /** The command's name, in messages (`serve`, `gateway`). */
  readonly command: string;
  readonly flags: ParsedArgs['flags'];
  readonly policy: Policy;
  /** `--search` is on without the flag (the gateway's config can ask for it). */
  readonly search?: boolean;
  /** `--max-loaded` when the flag is not given. */
  readonly maxLoaded?: number;
  /**
   * Builds the tools over the registry options; what it opens is closed with them. With `--otel`,
   * `wrapUpstreamCall` makes a span of every request to an upstream MCP server (for the gateway).
   */
  readonly build: (
    registryOptions: RegistryOptions,
    telemetry: { readonly wrapUpstreamCall?: UpstreamCallWrapper },
  ) => Promise<ServedTools>;
  /** Who answers an `ask` that the MCP client cannot (default: nobody, so it is denied). */
  readonly fallbackApprover?: RegistryOptions['approver'];
  /** Told what `build` gave, before serving starts (e.g. to log the gateway's status). */
  readonly onServing?: (served: ServedTools) => void;
}

/**
 * Checks the serving flags, opens the audit log and telemetry, builds the gate over `policy`, asks
 * `build` for the tools, and serves them over stdio or Streamable HTTP until SIGINT, SIGTERM or (over
 * stdio) the end of stdin; then closes everything it opened, in reverse.
 *
 * @example
 * return serveTools(io, { command: 'serve', flags, policy, build: async (options) => ({ registry: new Registry(options) }) });
 */
export async function serveTools(io: CliIo, options: ServeToolsOptions): Promise<0> {
  const { flags, command } = options;
  const http = flags.http === true;
  const sessionFlags = ['session-idle', 'sessions-per-client'] as const;
  for (const flag of ['port', 'host', 'path', 'stateless', 'allow-origin', ...sessionFlags] as const) {
    if (!http && flags[flag] !== undefined) throw new UsageError(`--${flag} applies only with --http.`);
  }
  for (const flag of sessionFlags) {
    if (flags.stateless === true && flags[flag] !== undefined) {
      throw new UsageError(`--${flag} applies only with sessions: --stateless opens none.`);
    }
  }
  const sessionLimits = {
    ...(flags['session-idle'] === undefined
      ? {}
      : { sessionIdleMs: wholeNumberFlag('session-idle', flags['session-idle'], 1, 31_536_000) * 1000 }),
    ...(flags['sessions-per-client'] === undefined
      ? {}
      : {
          maxSessionsPerClient: wholeNumberFlag('sessions-per-client', flags['sessions-per-client'], 1, 1000),
        }),
  };
  const port = flags.port === undefined ? 3000 : wholeNumberFlag('port', flags.port, 0, 65_535);
  const pageSize =
    flags['page-size'] === undefined ? undefined : wholeNumberFlag('page-size', flags['page-size'], 1);
  const searching = flags.search === true || options.search === true;
  for (const flag of ['always-loaded', 'max-loaded'] as const) {
    if (!searching && flags[flag] !== undefined)
      throw new UsageError(`--${flag} applies only with --search.`);
  }
  // No client has a list of its own to load into: every one is served the stateless view (call_tool).
  const statelessSearch = searching && flags.stateless === true;
  if (statelessSearch && flags['max-loaded'] !== undefined) {
    throw new UsageError('--max-loaded applies only with sessions: with --stateless no search loads a tool.');
  }
  const maxLoaded =
    flags['max-loaded'] === undefined
      ? options.maxLoaded
      : wholeNumberFlag('max-loaded', flags['max-loaded'], 1);
  const path = typeof flags.path === 'string' ? flags.path : '/mcp';
  if (!path.startsWith('/')) throw new UsageError(`--path must start with "/", received "${path}".`);
  const allowedOrigins =
    typeof flags['allow-origin'] === 'string'
      ? flags['allow-origin']
          .split(',')
          .map((origin) => origin.trim())
          .filter(Boolean)
      : undefined;

  // The served registry owns the audit sinks and the search listing: one close (on SIGINT, SIGTERM or
  // the end of stdin) releases them all, and stops the MCP servers behind it.
  let served: ServedTools | undefined;
  // The audit log, until the registry owns it: closed here if the registry is never made.
  let audit: ReturnType<typeof combineAuditSinks> | ReturnType<typeof openAuditOption>;
  let telemetry: Awaited<ReturnType<typeof startTelemetryOption>> | undefined;
  // The shared store, until the registry owns it: closed here if the registry is never made.
  let store: PostgresStore | undefined;
  const stop = stopSignal();
  try {
    const mcp = await import('../mcp/index.js');
    const otel = flags.otel === true ? await import('../otel/index.js') : undefined;
    telemetry = otel ? await startTelemetryOption(otel) : undefined;
    const file = openAuditOption(flags.audit, io.cwd);
    audit = file;
    store = await openStoreOption(flags.store, io, options);
    const sinks = [
      ...(file ? [file] : []),
      ...(otel && telemetry ? [otel.createOtelAuditSink({ logger: telemetry.logger })] : []),
    ];
    audit = sinks.length > 0 ? combineAuditSinks(...sinks) : undefined;
    const local = audit;
    const shared = store;
    // With a store, the record is committed there before the result goes out (the promise holds it).
    const observe = shared
      ? (record: Parameters<typeof shared.audit.observe>[0]) => {
          local?.observe(record);
          return shared.audit.observe(record);
        }
      : local?.observe;
    const gate = createPolicyGate(options.policy, observe ? { observe } : {});
    // Asks go to the registry's approver: the user at the MCP client, where it can elicit.
    served = await options.build(
      {
        ...gate.registryOptions,
        ...(store ? { approvalQueue: store.approvalQueue(options.policy) } : {}),
        approver: mcp.elicitationApprover(
          options.fallbackApprover ? { fallback: options.fallbackApprover } : {},
        ),
      },
      otel && telemetry ? { wrapUpstreamCall: otel.upstreamSpans(telemetry.tracer) } : {},
    );
    const registry = served.registry;
    if (audit) registry.own(audit);
    if (store) {
      const opened = store;
      registry.own({ close: () => opened.close() });
      store = undefined;
    }
    if (otel && telemetry) {
      otel.instrument(registry, { tracer: telemetry.tracer, meter: telemetry.meter });
      io.stderr(`toolpact ${command}: exporting OpenTelemetry to ${otlpEndpoint(io.env)}.\n`);
    }
    options.onServing?.(served);
    const early = served;
    // Over HTTP there is no message to hold back, and a search listing is made from the tools there are.
    if (http || searching) {
      early.begin?.();
      await early.ready?.();
    }
    const search = searching
      ? registry.own(
          await searchListing(
            registry,
            flags['always-loaded'],
            served.alwaysLoaded ?? [],
            maxLoaded,
            statelessSearch,
            command,
          ),
        )
      : undefined;
    const listing = search ? (statelessSearch ? search.stateless : search) : served.listing;
    // With a store, a change on one replica reaches the listen streams open on every replica.
    const bus = shared && http ? await shared.eventBus() : undefined;
    const common = {
      requestState: stateSealer(mcp, io, http, command, shared),
      ...(typeof flags.name === 'string' ? { name: flags.name } : {}),
      ...(pageSize ? { pageSize } : {}),
      ...(listing ? { listing } : {}),
    };
    const toolCount = () =>
      !search
        ? counted((served?.listing ?? registry).schemas().length, 'tool')
        : statelessSearch
          ? `${counted(registry.size, 'tool')} (${search.stateless.schemas().length} listed, call_tool among them)`
          : `${counted(registry.size, 'tool')} (${search.activeTools().length} listed until a search loads more)`;
    return await serve(mcp, registry, common, toolCount, bus);
  } finally {
    stop.dispose();
    if (!served) audit?.close();
    await store?.close();
    await closeWithin(
      served?.close ? { close: served.close } : served?.registry,
      io,
      command,
      command === 'serve' ? undefined : 'the served tools',
    );
    await telemetry?.shutdown();
  }

  async function serve(
    mcp: typeof import('../mcp/index.js'),
    registry: Registry,
    common: McpServerOptions & Pick<StdioServeOptions, 'requestState'>,
    toolCount: () => string,
    bus: import('../store/index.js').PostgresEventBus | undefined,
  ): Promise<0> {
    if (!http) {
      const begin = served?.begin;
      const ready = served?.ready;
      const stdin = begin || ready ? openingFirst(process.stdin, { begin, ready }) : undefined;
      const running = await mcp.serveStdio(registry, { ...common, ...(stdin ? { stdin } : {}) });
      io.stderr(`toolpact ${command}: ${toolCount()} on stdio.\n`);
      await Promise.race([running.closed, stop.signalled]);
      await running.close();
      return 0;
    }
    const host = typeof flags.host === 'string' ? flags.host : '127.0.0.1';
    let running: Awaited<ReturnType<typeof mcp.serveHttp>>;
    try {
      running = await mcp.serveHttp(registry, {
        ...common,
        ...(bus ? { bus } : {}),
        host,
        port,
        path,
        stateless: flags.stateless === true,
        ...sessionLimits,
        ...(allowedOrigins ? { allowedOrigins } : {}),
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new UsageError(`Cannot listen on ${host}:${port}: ${reason}`);
    }
    if (!mcp.isLoopbackHost(host)) {
      io.stderr(
        `toolpact ${command}: listening on ${host}, reachable from the network, with no authentication. Put it behind a proxy that authenticates.\n`,
      );
    }
    io.stderr(
      `toolpact ${command}: ${toolCount()} at ${running.url} (${flags.stateless ? 'stateless' : 'sessions'}).\n`,
    );
    const signal = await stop.signalled;
    io.stderr(`toolpact ${command}: ${signal}, stopping.\n`);
    await running.close();
    return 0;
  }
}

/** The SDK started for `--otel`; a missing package is a usage error saying what to install. */
async function startTelemetryOption(otel: typeof import('../otel/index.js')) {
  try {
    return await otel.startTelemetry({ serviceName: 'toolpact' });
  } catch (error) {
    throw new UsageError(`--otel: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * `--search`: the registry gains `search_tools`, and the listing follows what searches load (for a 2025
 * session) or stays fixed with `call_tool` (revision 2026-07-28; every client with `--stateless`).
 */
async function searchListing(
  registry: Registry,
  alwaysLoaded: string | boolean | undefined,
  configured: readonly string[],
  maxLoaded: number | undefined,
  stateless: boolean,
  command: string,
) {
  const { withToolSearch } = await import('../search/index.js');
  const served =
    command === 'serve' ? 'the module does not export. Its tools:' : 'is not among the served tools:';
  const names =
    typeof alwaysLoaded === 'string'
      ? alwaysLoaded
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean)
      : [];
  for (const name of names) {
    if (!registry.has(name)) {
      throw new UsageError(
        `--always-loaded names "${name}", which ${served} ${registry
          .list()
          .map((tool) => tool.contract.name)
          .join(', ')}.`,
      );
    }
  }
  return withToolSearch(registry, {
    alwaysLoaded: [...new Set([...names, ...configured.filter((name) => registry.has(name))])],
    ...(maxLoaded ? { maxLoaded } : {}),
    ...(stateless ? { stateless } : {}),
  });
}

/** Where the traces go, as the OTLP exporters read the environment. */
function otlpEndpoint(env: { readonly [name: string]: string | undefined }): string {
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318';
}

/**
 * The sealer of revision 2026-07-28 approval states, from `TOOLPACT_STATE_KEY`: a key that cannot be
 * read is a usage error naming the variable (never a failure to listen), and a server with no key says
 * what that means for replicas.
 */
function stateSealer(
  mcp: typeof import('../mcp/index.js'),
  io: CliIo,
  http: boolean,
  command: string,
  store: PostgresStore | undefined,
): InstanceType<typeof mcp.RequestStateSealer> {
  let sealer: InstanceType<typeof mcp.RequestStateSealer>;
  try {
    // With a store, a state is used once across every replica, not once per process.
    sealer = mcp.RequestStateSealer.fromEnvironment(
      io.env,
      store ? { sharedClaim: (id, expiresAt) => store.claimState(id, expiresAt) } : {},
    );
  } catch (error) {
    if (error instanceof mcp.RequestStateKeyError) throw new UsageError(error.message);
    throw error;
  }
  // Over stdio one process answers every retry, so its own key is all it needs.
  if (http && sealer.ephemeral) {
    io.stderr(
      `toolpact ${command}: no TOOLPACT_STATE_KEY, so approvals of 2026-07-28 clients are sealed with a key of this process only (another replica, or this one after a restart, cannot complete them). Set TOOLPACT_STATE_KEY to 32 random bytes (openssl rand -hex 32) on every replica.\n`,
    );
  }
  return sealer;
}

/**
 * The shared store `--store` (or `TOOLPACT_STORE`) names, opened and migrated; an unreachable server
 * is a usage error (exit 2) naming the host it tried.
 */
async function openStoreOption(
  flag: string | boolean | undefined,
  io: CliIo,
  options: ServeToolsOptions,
): Promise<PostgresStore | undefined> {
  const url = typeof flag === 'string' ? flag : io.env.TOOLPACT_STORE;
  if (url === undefined || url === '') return undefined;
  const { openPostgresStore, StoreError } = await import('../store/index.js');
  try {
    return await openPostgresStore(url, {
      auditFailure: options.policy.auditFailure ?? 'fail',
      onWarning: (message) => io.stderr(`toolpact ${options.command}: ${message}\n`),
    });
  } catch (error) {
    if (error instanceof StoreError) throw new UsageError(error.message);
    throw error;
  }
}
