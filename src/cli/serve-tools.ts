/** The serving flags of `toolpact serve` and `toolpact gateway`, mapped to `serveRegistry` options. */
import type { FlagSpec, ParsedArgs } from './args.js';
import { UsageError } from './io.js';
import { wholeNumberFlag } from './stop-signal.js';

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
  auth: 'string',
  'insecure-no-auth': 'boolean',
};

/** The usage lines of the serving flags. */
export const SERVE_FLAG_USAGE = [
  '  --http          serve Streamable HTTP instead of stdio',
  '  --port <n>      HTTP port (default 3000; 0 picks a free one)',
  '  --host <addr>   HTTP address (default 127.0.0.1). Another address exposes the tools to the network.',
  '  --path <path>   HTTP endpoint path (default /mcp)',
  '  --stateless     no sessions for 2025 clients either: any replica can answer any request (they lose',
  '                  list_changed and elicitation). Revision 2026-07-28 requests never have a session.',
  '  --auth <file>   authenticate every request as an OAuth resource server (see docs/auth.md):',
  "                  trusted issuers, this server's resource URI, required scopes, group claims",
  '  --insecure-no-auth  serve a non-loopback --host without --auth (refused otherwise); every',
  '                  response then carries a Toolpact-Warning header',
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

/**
 * The `serveRegistry` options the serving flags give, checked: a flag that applies only with another
 * is a usage error. `search` turns search on without `--search` (the gateway's config), with its
 * `--max-loaded` when the flag is not given.
 */
export function servingFlags(flags: ParsedArgs['flags'], search?: { readonly maxLoaded?: number }) {
  const http = httpOption(flags);
  const searching = flags.search === true || search !== undefined;
  for (const flag of ['always-loaded', 'max-loaded'] as const) {
    if (!searching && flags[flag] !== undefined)
      throw new UsageError(`--${flag} applies only with --search.`);
  }
  // No client has a list of its own to load into: every one is served the stateless view (call_tool).
  if (searching && http?.stateless && flags['max-loaded'] !== undefined) {
    throw new UsageError('--max-loaded applies only with sessions: with --stateless no search loads a tool.');
  }
  const maxLoaded =
    flags['max-loaded'] === undefined
      ? search?.maxLoaded
      : wholeNumberFlag('max-loaded', flags['max-loaded'], 1);
  const alwaysLoaded = typeof flags['always-loaded'] === 'string' ? listOf(flags['always-loaded']) : [];
  const pageSize =
    flags['page-size'] === undefined ? undefined : wholeNumberFlag('page-size', flags['page-size'], 1);
  return {
    http,
    ...(searching ? { search: { alwaysLoaded, ...(maxLoaded ? { maxLoaded } : {}) } } : {}),
    ...(typeof flags.name === 'string' ? { name: flags.name } : {}),
    ...(pageSize ? { pageSize } : {}),
  };
}

/** The HTTP options the flags give, checked; undefined without `--http`. */
function httpOption(flags: ParsedArgs['flags']) {
  const sessionFlags = ['session-idle', 'sessions-per-client'] as const;
  const httpFlags = [
    'port',
    'host',
    'path',
    'stateless',
    'allow-origin',
    'auth',
    'insecure-no-auth',
  ] as const;
  for (const flag of [...httpFlags, ...sessionFlags] as const) {
    if (flags.http !== true && flags[flag] !== undefined)
      throw new UsageError(`--${flag} applies only with --http.`);
    if (flags.stateless === true && flags[flag] !== undefined && sessionFlags.includes(flag as never)) {
      throw new UsageError(`--${flag} applies only with sessions: --stateless opens none.`);
    }
  }
  if (flags.http !== true) return undefined;
  const path = typeof flags.path === 'string' ? flags.path : '/mcp';
  if (!path.startsWith('/')) throw new UsageError(`--path must start with "/", received "${path}".`);
  const idle = flags['session-idle'];
  const perClient = flags['sessions-per-client'];
  return {
    host: typeof flags.host === 'string' ? flags.host : '127.0.0.1',
    port: flags.port === undefined ? 3000 : wholeNumberFlag('port', flags.port, 0, 65_535),
    path,
    stateless: flags.stateless === true,
    ...(idle === undefined
      ? {}
      : { sessionIdleMs: wholeNumberFlag('session-idle', idle, 1, 31_536_000) * 1000 }),
    ...(perClient === undefined
      ? {}
      : { maxSessionsPerClient: wholeNumberFlag('sessions-per-client', perClient, 1, 1000) }),
    ...(typeof flags['allow-origin'] === 'string' ? { allowedOrigins: listOf(flags['allow-origin']) } : {}),
    ...(flags['insecure-no-auth'] === true ? { insecureNoAuth: true } : {}),
  };
}

function listOf(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}
