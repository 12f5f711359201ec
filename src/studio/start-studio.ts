import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { compress } from 'hono/compress';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import { type AuditEntry, toEntry } from '../audit/audit-log.js';
import { type AuthConfig, type ResolvedAuthConfig, resolveAuthConfig } from '../auth/auth-config.js';
import type { BeforeCallHook, GateRequest } from '../dispatch/gate.js';
import { ToolDefinitionError } from '../errors/index.js';
import { jsonBodyMessage, readJsonBody } from '../mcp/json-body.js';
import { checkRequestOrigin, isLoopbackHost } from '../mcp/origin-check.js';
import { definePolicy } from '../policy/define-policy.js';
import type { Policy } from '../policy/policy.js';
import { createPolicyGate, type PolicyDecision, type PolicyGate } from '../policy/policy-gate.js';
import type { CallRecord, Registry, RegistryOptions } from '../registry/registry.js';
import type { PostgresStore } from '../store/postgres-store.js';
import { cookieValue, escapeHtml } from '../util/http-text.js';
import { INSECURE_WARNING, INSECURE_WARNING_HEADER } from '../util/insecure-warning.js';
import { type ApprovalChoice, ApprovalQueue } from './approval-queue.js';
import {
  type StoreQueueDecision,
  StoreQueueError,
  StoreQueueFeed,
  type StoreQueueView,
} from './store-queue.js';
import {
  envelopeTokens,
  STUDIO_FORMATS,
  type StudioOverview,
  studioOverview,
  studioToolDetail,
} from './studio-model.js';
import { openStudioSignIn, type StudioSession, type StudioSignIn, setCookie } from './studio-signin.js';
import { hasSearchIndex, searchStudioTools } from './tool-search.js';
import { contentSecurityPolicy, loadUiAssets, modulePaths, renderPage } from './ui-assets.js';
import { watchFiles } from './watch-files.js';

/** What the studio shows: a registry built with the studio's gate options, and how to let it go. */
export interface StudioSource {
  readonly registry: Registry;
  /** Called when the source is replaced or the studio stops (an MCP import closes its connection). */
  readonly close?: () => Promise<void>;
  /** Tools the source could not take, with why (an MCP server's tools with broken schemas). */
  readonly skipped?: readonly {
    readonly remoteName: string;
    readonly code: string;
    readonly message: string;
  }[];
}

/** Options of {@link startStudio}. */
export interface StudioOptions {
  /** What the page calls the tool set: the module path, or the MCP server. */
  readonly label: string;
  /** `module` or `mcp`, shown in the page. */
  readonly kind?: 'module' | 'mcp';
  /**
   * Builds the registry to show, passing `options` (the gate and the audit observer) to `new Registry`.
   * Called at start and again on every reload.
   */
  readonly load: (options: RegistryOptions) => Promise<StudioSource> | StudioSource;
  /** The policy the gate applies (default: the category defaults). */
  readonly policy?: Policy;
  /** The port (default 0: a free one). */
  readonly port?: number;
  /**
   * The address to listen on (default `127.0.0.1`). Anything but loopback needs `auth`, or
   * `insecureNoAuth`.
   */
  readonly host?: string;
  /**
   * Sign-in: the auth file's content (`loadAuthConfig`), with its `studio` section naming the studio's
   * OpenID Connect client. Every page and API request then needs a session, opened by signing in at
   * the issuer (authorization code with PKCE), and decisions are the signed-in person's.
   */
  readonly auth?: AuthConfig | ResolvedAuthConfig;
  /**
   * Serve a non-loopback `host` without `auth` (refused otherwise): every response then carries the
   * `Toolpact-Warning` header. For a private network, or a proxy in front that authenticates.
   */
  readonly insecureNoAuth?: boolean;
  /** Where the studio client's secret variable (`$.studio.clientSecretEnv`) is read (default `process.env`). */
  readonly env?: { readonly [name: string]: string | undefined };
  /** Files or folders whose change reloads the source (a folder: the files directly in it). */
  readonly watch?: readonly string[];
  /** How long an approval may wait for an answer before the call is denied (default 10 minutes). */
  readonly approvalTimeoutMs?: number;
  /**
   * A fleet's shared store (`openPostgresStore`): each call made from the page is committed to its
   * audit log before its result is shown, asks whose rule says `approver: "queue"` go to its queue,
   * and the page's Approvals view lists that queue, live, and approves or denies from it. The studio
   * never closes it: whoever opened it does, after the studio.
   */
  readonly store?: PostgresStore;
  /**
   * Who decisions taken in the Approvals view are recorded as, unless the page names someone else
   * (default: the USER, else LOGNAME, of this process).
   */
  readonly decider?: string;
  /** How often the store's queue is read while a page is open (default 1,000 ms). */
  readonly storePollMs?: number;
}

/** A running studio. */
export interface RunningStudio {
  /**
   * The page's address: with the run's token in it (`http://127.0.0.1:43121/3f…a9/`), or, with sign-in,
   * the studio's root (`https://studio.example.com/`).
   */
  readonly url: string;
  readonly port: number;
  /** Loads the source again and tells open pages (what a file change does). */
  reload(): Promise<void>;
  /** Denies the open approvals, closes the source and stops listening. */
  close(): Promise<void>;
}

/** One call made from the page, as the history shows it. */
export interface StudioCall {
  readonly id: number;
  readonly time: string;
  readonly tool: string;
  /** What was sent: the raw text as typed, or the form's JSON. */
  readonly sent: string;
  /** The envelope's JSON text, exactly as the model reads it. */
  readonly text: string;
  readonly tokens: number;
  readonly ok: boolean;
  readonly durationMs: number;
}

const DEFAULT_HOST = '127.0.0.1';
/** The header every response of a studio reachable from the network without sign-in carries. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Deepest nesting of a request body, as the MCP HTTP path allows. */
const MAX_BODY_DEPTH = 64;
// Calls and audit entries kept for the page; a result can be 100,000 characters, so not many more.
const MAX_KEPT = 200;
const HEARTBEAT_MS = 15_000;
const MAX_DECIDER_CHARS = 200;

/**
 * Serves the studio: a page (on 127.0.0.1 unless `host` says otherwise) that shows a tool set as each
 * provider receives it, with lint findings, token costs and the gate's decisions, and runs calls
 * through the real `registry.call` with the gate, asking the person at the page when the policy says
 * `ask`. Every request must come from the page's own origin, to a Host it answers, and carry either
 * the run's random token in its path or, with `auth`, the session of someone signed in.
 *
 * @example
 * const studio = await startStudio({
 *   label: 'tools.ts',
 *   load: (options) => ({ registry: new Registry(options).register(readFile, writeFile) }),
 * });
 * console.log(`Open ${studio.url}`);
 */
export async function startStudio(options: StudioOptions): Promise<RunningStudio> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ToolDefinitionError('invalid_option', `port is ${String(options.port)}; give 0 to 65535.`);
  }
  const pollMs = options.storePollMs;
  if (pollMs !== undefined && !(Number.isFinite(pollMs) && pollMs > 0)) {
    throw new ToolDefinitionError(
      'invalid_option',
      `storePollMs is ${String(pollMs)}; give a positive number of milliseconds (default 1000).`,
    );
  }
  const host = options.host ?? DEFAULT_HOST;
  if (typeof host !== 'string' || host.trim() === '' || /[\s/]/.test(host)) {
    throw new ToolDefinitionError(
      'invalid_option',
      `host is ${JSON.stringify(host)}; give an address to listen on, e.g. 127.0.0.1 or 0.0.0.0.`,
    );
  }
  const bare = host.replace(/^\[|\]$/g, '');
  const loopback = isLoopbackHost(bare);
  const wildcard = bare === '0.0.0.0' || bare === '::';
  const auth = options.auth === undefined ? undefined : resolvedAuth(options.auth);
  if (auth && !auth.studio) {
    throw new ToolDefinitionError(
      'invalid_option',
      'auth has no "studio" section, so the studio cannot sign anyone in. Add { "studio": { "clientId": "…" } } naming the studio\'s client at your provider (see docs/studio.md).',
    );
  }
  if (!loopback && !auth && !options.insecureNoAuth) {
    throw new ToolDefinitionError(
      'invalid_option',
      `host is ${JSON.stringify(host)}, reachable from the network, and no auth is configured: anyone who reaches the port could run the tools and decide approvals. Give auth (with a "studio" section; see docs/studio.md), bind 127.0.0.1, or set insecureNoAuth when something in front authenticates.`,
    );
  }
  if (auth && wildcard && !auth.studio?.url) {
    throw new ToolDefinitionError(
      'invalid_option',
      `host is ${JSON.stringify(host)}, every address of this machine, so the studio cannot tell the address browsers reach it at. Give it in the auth file as $.studio.url (e.g. "https://studio.example.com"), the origin of the redirect URI registered at the provider.`,
    );
  }
  const insecure = !loopback && !auth;
  const token = randomBytes(18).toString('base64url');
  // With sign-in the studio is served at its root (its redirect URI is registered at the provider);
  // without, every path sits under the run's random token.
  const base = auth ? '' : `/${token}`;
  const assets = loadUiAssets();
  const preload = modulePaths(assets);
  const policy = definePolicy(options.policy ?? { rules: [] });
  const approvals = new ApprovalQueue();
  const audit: StudioAuditEntry[] = [];
  const history: StudioCall[] = [];
  const streams = new Set<SSEStreamingApi>();
  const store = options.store;
  const observe = (record: CallRecord) => {
    const by = approvals.answeredBy(record.callId);
    const entry: StudioAuditEntry =
      by === undefined ? toEntry(record) : { ...toEntry(record), answeredBy: by };
    keep(audit, entry);
    broadcast('audit', entry);
    // With a store, the result waits until the record is committed there, as `toolpact serve` does.
    return store?.audit.observe(record);
  };
  const gate = createPolicyGate(policy, {
    approver: approvals.approver,
    observe,
    approvalTimeoutMs: options.approvalTimeoutMs ?? 600_000,
  });
  // The list shows what the gate would decide without asking anyone, remembering session approvals.
  const listGate = createPolicyGate(policy, { session: gate.session });
  const registryOptions: RegistryOptions = store
    ? {
        ...gate.registryOptions,
        beforeCall: queueFirst(policy, gate, listGate),
        approvalQueue: store.approvalQueue(policy),
      }
    : { ...gate.registryOptions };
  const queue = store
    ? new StoreQueueFeed(store, {
        ...(options.decider ? { decider: options.decider } : {}),
        ...(pollMs ? { pollMs } : {}),
      })
    : undefined;

  let source = await options.load(registryOptions);
  let version = 1;
  let loadError: string | null = null;
  let overview: Promise<StudioOverview> | undefined;
  let unsubscribe = source.registry.onChange(changed);
  let callCount = 0;

  function changed(): void {
    overview = undefined;
    version++;
    broadcast('state', { version, loadError });
  }
  const currentOverview = () => {
    overview ??= studioOverview(source.registry, listGate);
    return overview;
  };

  function broadcast(event: string, data: unknown): void {
    const message = { event, data: JSON.stringify(data) };
    for (const stream of streams) stream.writeSSE(message).catch(() => streams.delete(stream));
  }
  approvals.onChange((pending) => broadcast('approvals', pending));
  queue?.onChange((view) => broadcast('queue', view));

  let reloading = Promise.resolve();
  const reload = (): Promise<void> => {
    reloading = reloading.then(async () => {
      try {
        const next = await options.load(registryOptions);
        const previous = source;
        unsubscribe();
        source = next;
        unsubscribe = source.registry.onChange(changed);
        loadError = null;
        await previous.close?.().catch(() => {});
      } catch (error) {
        // The page keeps the last tool set that loaded and says why the new one did not.
        loadError = error instanceof Error ? error.message : String(error);
      }
      changed();
    });
    return reloading;
  };
  const stopWatching = options.watch?.length ? watchFiles(options.watch, () => void reload()) : () => {};

  const app = new Hono<StudioEnv>({ strict: false });
  let selfOrigins: readonly string[] = [];
  let allowedHosts: readonly string[] = [];
  let signIn: StudioSignIn | undefined;
  // The event streams of each session, closed when it signs out or expires.
  const streamSessions = new Map<SSEStreamingApi, string>();
  app.onError((_error, c) => c.json(problem('internal', 'The studio failed to answer this request.'), 500));
  if (insecure) {
    app.use('*', async (c, next) => {
      await next();
      c.res.headers.set(INSECURE_WARNING_HEADER, INSECURE_WARNING);
    });
  }
  app.use('*', async (c, next) => {
    const origin = c.req.header('origin');
    // The Host must name loopback, the address listened on, or the studio's configured address.
    const refusal = checkRequestOrigin(
      { host: c.req.header('host'), origin },
      { loopback: true, allowedHosts },
    );
    if (refusal) return c.text(`${refusal.message}\n`, refusal.status);
    // Stricter than a loopback check: another local page (another port) must not drive the studio.
    if (origin !== undefined && origin !== '' && !selfOrigins.includes(origin)) {
      return c.text(
        `Origin ${JSON.stringify(origin.slice(0, 200))} is not this studio's page; only ${selfOrigins[0]} may use it. Open the URL that "toolpact studio" printed.\n`,
        403,
      );
    }
    const path = new URL(c.req.url).pathname;
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'no-store');
    if (auth) return withSession(c, next, path);
    const [, first = ''] = path.split('/');
    if (!sameToken(first, token)) {
      return c.text(
        'This studio needs the token of its URL. Open the exact URL that "toolpact studio" printed (it ends with a random token), or restart it for a new one.\n',
        403,
      );
    }
    if (path === `/${token}`) return c.redirect(`/${token}/`, 308);
    await next();
  });

  /** With sign-in: the sign-in routes pass; every other request needs a live session. */
  async function withSession(c: Context<StudioEnv>, next: () => Promise<void>, path: string) {
    if (!signIn) return c.text('The studio is starting; try again in a moment.\n', 503);
    if (path.startsWith('/auth/')) return next();
    const session = signIn.session(cookieValue(c.req.header('cookie'), signIn.cookies.session));
    if (session) {
      c.set('session', session);
      return next();
    }
    if ((c.req.method === 'GET' || c.req.method === 'HEAD') && !path.startsWith('/api/')) {
      const url = new URL(c.req.url);
      const started = await signIn.start(`${url.pathname}${url.search}`);
      c.header(
        'Set-Cookie',
        setCookie(signIn.cookies.flow, started.flow, { secure: signIn.secure, maxAgeSeconds: 600 }),
      );
      return c.redirect(started.location, 302);
    }
    return c.json(
      problem(
        'not_signed_in',
        `This studio needs you signed in with ${signIn.issuer}, and this request carries no live session (none yet, signed out, or expired). Open ${selfOrigins[0]}/ in the browser to sign in.`,
      ),
      401,
    );
  }

  if (auth) {
    app.get('/auth/callback', async (c) => {
      const current = signIn as StudioSignIn;
      const outcome = await current.finish(
        cookieValue(c.req.header('cookie'), current.cookies.flow),
        new URL(c.req.url),
      );
      c.header(
        'Set-Cookie',
        setCookie(current.cookies.flow, '', { secure: current.secure, maxAgeSeconds: 0 }),
        {
          append: true,
        },
      );
      if (!outcome.ok) return notice(c, 'Not signed in', outcome.message, outcome.status);
      const seconds = (outcome.session.expiresAt - Date.now()) / 1000;
      c.header(
        'Set-Cookie',
        setCookie(current.cookies.session, outcome.session.id, {
          secure: current.secure,
          maxAgeSeconds: seconds,
        }),
        { append: true },
      );
      return c.redirect(safeReturn(outcome.returnTo), 303);
    });
    app.post('/auth/sign-out', (c) => {
      const current = signIn as StudioSignIn;
      const id = cookieValue(c.req.header('cookie'), current.cookies.session);
      const provider = current.end(id);
      for (const [stream, owner] of streamSessions) if (owner === id) stream.abort();
      c.header(
        'Set-Cookie',
        setCookie(current.cookies.session, '', { secure: current.secure, maxAgeSeconds: 0 }),
      );
      return c.json({ next: provider ?? '/auth/signed-out' });
    });
    app.get('/auth/signed-out', (c) => notice(c, 'Signed out', 'You are signed out of this studio.', 200));
  }

  const page = new Hono<StudioEnv>({ strict: false });
  page.use('*', compress());
  page.get('/', (c) => {
    const nonce = randomBytes(16).toString('base64');
    c.header('Content-Security-Policy', contentSecurityPolicy(nonce));
    c.header('X-Frame-Options', 'DENY');
    return c.html(renderPage(options.label, nonce, preload));
  });
  page.get('/ui/:file', (c) => asset(c, assets.ui.get(c.req.param('file'))));
  page.get('/vendor/:file', (c) => asset(c, assets.vendor.get(c.req.param('file'))));

  page.get('/api/overview', async (c) => {
    const data = await currentOverview();
    return c.json({
      label: options.label,
      kind: options.kind ?? 'module',
      version,
      loadError,
      formats: STUDIO_FORMATS,
      searchIndex: await hasSearchIndex(),
      skipped: source.skipped ?? [],
      policyRules: policy.rules.length,
      store: store?.where ?? null,
      signedIn: signedInOf(c.get('session')),
      ...data,
    });
  });
  page.get('/api/tools/:name', async (c) => {
    const name = c.req.param('name');
    const detail = studioToolDetail(source.registry, await currentOverview(), name);
    if (!detail) {
      return c.json(
        problem(
          'unknown_tool',
          `No tool is named ${JSON.stringify(name.slice(0, 200))}; pick one from the list (it may have been renamed by a reload).`,
        ),
        404,
      );
    }
    return c.json(detail);
  });
  page.get('/api/search', async (c) =>
    c.json(await searchStudioTools(source.registry, c.req.query('q') ?? '')),
  );
  page.get('/api/history', (c) => c.json(history));
  page.get('/api/audit', (c) => c.json(audit));
  page.get('/api/approvals', (c) => c.json(approvals.pending()));

  page.get('/api/queue', async (c) => {
    if (!queue) return c.json(noStore(), 404);
    return c.json(await queue.refresh());
  });

  page.post('/api/queue/:id', async (c) => {
    if (!queue) return c.json(noStore(), 404);
    const body = await readBody(c);
    if (!body.ok) return c.json(body.problem, body.status);
    const decision = queueDecision(body.value);
    if (typeof decision === 'string') return c.json(problem('bad_request', decision), 400);
    const session = c.get('session');
    try {
      // Signed in, the decision is that person's, whatever name the body gives.
      const decided = session
        ? {
            action: decision.action,
            ...(decision.reason ? { reason: decision.reason } : {}),
            by: session.principal.subject,
            decider: session.principal,
          }
        : decision;
      return c.json(await queue.decide(c.req.param('id'), decided));
    } catch (error) {
      if (error instanceof StoreQueueError) return c.json(problem(error.type, error.message), error.status);
      throw error;
    }
  });

  page.post('/api/call', async (c) => {
    const body = await readBody(c);
    if (!body.ok) return c.json(body.problem, body.status);
    const { tool, raw } = body.value as { tool?: unknown; raw?: unknown; arguments?: unknown };
    const hasArguments = Object.hasOwn(body.value, 'arguments');
    if (typeof tool !== 'string' || tool === '') {
      return c.json(
        problem('bad_request', `Give "tool" as the tool's name, received ${describe(tool)}.`),
        400,
      );
    }
    if (raw !== undefined && typeof raw !== 'string') {
      return c.json(
        problem('bad_request', `"raw" is the text a model would send, received ${describe(raw)}.`),
        400,
      );
    }
    const sent = raw ?? (hasArguments ? (body.value as { arguments: unknown }).arguments : {});
    const id = ++callCount;
    const started = Date.now();
    const envelope = await source.registry.call(tool, sent, { callId: `studio-${id}` });
    const text = JSON.stringify(envelope);
    const call: StudioCall = {
      id,
      time: new Date(started).toISOString(),
      tool,
      sent: typeof sent === 'string' ? sent : JSON.stringify(sent),
      text,
      tokens: envelopeTokens(text),
      ok: envelope.ok,
      durationMs: Date.now() - started,
    };
    keep(history, call);
    broadcast('call', call);
    return c.json(call);
  });

  page.post('/api/approvals/:id', async (c) => {
    const body = await readBody(c);
    if (!body.ok) return c.json(body.problem, body.status);
    const choice = approvalChoice(body.value);
    if (typeof choice === 'string') return c.json(problem('bad_request', choice), 400);
    if (!approvals.answer(c.req.param('id'), choice, c.get('session')?.principal.subject)) {
      return c.json(problem('unknown_approval', 'This approval was already answered or has expired.'), 404);
    }
    if (choice.action === 'allow' && choice.scope === 'session') changed();
    return c.json({ ok: true });
  });

  page.get('/api/events', (c) =>
    streamSSE(c, async (stream) => {
      streams.add(stream);
      const session = c.get('session');
      if (session) streamSessions.set(stream, session.id);
      await stream.writeSSE({ event: 'state', data: JSON.stringify({ version, loadError }) });
      await stream.writeSSE({ event: 'approvals', data: JSON.stringify(approvals.pending()) });
      // The store's queue is read while a page follows; a change is pushed as a `queue` event.
      const unfollow = queue?.follow();
      stream.onAbort(() => unfollow?.());
      if (queue) {
        const view: StoreQueueView = queue.current() ?? (await queue.refresh());
        await stream.writeSSE({ event: 'queue', data: JSON.stringify(view) });
      }
      await new Promise<void>((resolve) => {
        const heartbeat = setInterval(() => {
          // A session that expired stops its stream; the page then asks to sign in again.
          if (session && !signIn?.session(session.id)) {
            stream.abort();
            return;
          }
          stream.writeSSE({ event: 'ping', data: '{}' }).catch(() => {});
        }, HEARTBEAT_MS);
        stream.onAbort(() => {
          clearInterval(heartbeat);
          streams.delete(stream);
          streamSessions.delete(stream);
          resolve();
        });
      });
    }),
  );
  page.all('*', (c) =>
    c.json(problem('not_found', `Nothing is served at ${c.req.path.slice(0, 200)}.`), 404),
  );
  app.route(base || '/', page);

  let server: Server;
  try {
    server = await new Promise<Server>((resolve, reject) => {
      const started = serve({ fetch: app.fetch, port, hostname: bare }, () => resolve(started as Server));
      (started as Server).once('error', reject);
    });
  } catch (error) {
    await abandon();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const named = wildcard ? DEFAULT_HOST : bare.includes(':') ? `[${bare}]` : bare;
  const listening = `http://${named}:${address.port}`;
  const configured = auth?.studio?.url;
  const origin = configured ?? listening;
  const publicHost = configured ? new URL(configured).host : undefined;
  // The addresses a Host header may name besides loopback: the one listened on, or every address of
  // the machine for a wildcard, and the configured address.
  const addresses = loopback ? [] : wildcard ? machineAddresses() : [named];
  allowedHosts = [...addresses.map((name) => `${name}:${address.port}`), ...(publicHost ? [publicHost] : [])];
  selfOrigins = [
    ...new Set([
      origin,
      listening,
      ...['127.0.0.1', 'localhost', '[::1]', ...addresses].map((name) => `http://${name}:${address.port}`),
    ]),
  ];
  if (auth) {
    try {
      signIn = await openStudioSignIn(auth, { origin, ...(options.env ? { env: options.env } : {}) });
    } catch (error) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await abandon();
      throw error;
    }
  }

  async function abandon(): Promise<void> {
    // Nothing listens, so nothing would ever close the watchers or the source (an MCP connection).
    stopWatching();
    unsubscribe();
    await reloading;
    await source.close?.().catch(() => {});
  }

  return {
    url: `${auth ? origin : listening}${base}/`,
    port: address.port,
    reload,
    async close() {
      stopWatching();
      queue?.close();
      approvals.denyAll('the studio stopped before anyone answered');
      for (const stream of streams) stream.abort();
      streams.clear();
      unsubscribe();
      await reloading;
      await source.close?.().catch(() => {});
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The gate of a studio with a store: an ask whose rule says `approver: "queue"` is left as an ask, so
 * the registry sends it to the store's queue; every other ask goes to the page's dialog, as without a
 * store. `undecided` is the same policy and session without an approver.
 */
function queueFirst(policy: Policy, page: PolicyGate, undecided: PolicyGate): BeforeCallHook {
  const queued = new Set(policy.rules.filter((rule) => rule.approver === 'queue').map((rule) => rule.id));
  if (queued.size === 0) return page.decide;
  const choose = (decision: PolicyDecision, request: GateRequest) =>
    decision.action === 'ask' && !(decision.rule !== undefined && queued.has(decision.rule))
      ? page.decide(request)
      : decision;
  return (request) => {
    const decision = undecided.decide(request);
    return decision instanceof Promise
      ? decision.then((settled) => choose(settled, request))
      : choose(decision, request);
  };
}

function asset(c: Context, found: { body: Uint8Array; type: string } | undefined): Response {
  if (!found) return c.json(problem('not_found', 'No such file in the studio.'), 404);
  return c.body(found.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': found.type });
}

function problem(type: string, message: string) {
  return { error: { type, message } };
}

function noStore() {
  return problem(
    'no_store',
    'This studio has no shared store, so there is no approval queue to show. Start it with --store postgres://… (or TOOLPACT_STORE), or pass `store` to startStudio.',
  );
}

function queueDecision(value: Record<string, unknown>): StoreQueueDecision | string {
  const action = value.action;
  if (action !== 'approve' && action !== 'deny') {
    return `"action" is "approve" or "deny", received ${describe(action)}.`;
  }
  for (const field of ['by', 'reason'] as const) {
    if (value[field] !== undefined && typeof value[field] !== 'string') {
      return `"${field}" is text, received ${describe(value[field])}.`;
    }
  }
  const by = typeof value.by === 'string' ? value.by.trim() : '';
  if (by.length > MAX_DECIDER_CHARS) {
    return `"by" names who decides in at most ${MAX_DECIDER_CHARS} characters, received ${by.length}.`;
  }
  const reason = typeof value.reason === 'string' ? value.reason.trim().slice(0, 1000) : '';
  return { action, ...(by ? { by } : {}), ...(reason ? { reason } : {}) };
}

/**
 * A request's JSON object, read within the limits the MCP HTTP path holds bodies to: a body over
 * `MAX_BODY_BYTES` is 413 (refused from its Content-Length before a byte is read, or as soon as it
 * grows past it), one nested deeper than `MAX_BODY_DEPTH` is 400 before it is parsed.
 */
async function readBody(
  c: Context,
): Promise<
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; status: 400 | 413; problem: ReturnType<typeof problem> }
> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming) throw new Error('The studio reads request bodies from a Node.js server only.');
  const body = await readJsonBody(incoming, { maxBytes: MAX_BODY_BYTES, maxDepth: MAX_BODY_DEPTH });
  if (!body.ok) {
    if (body.reason === 'not_json') {
      return {
        ok: false,
        status: 400,
        problem: problem('bad_request', 'The request body is not JSON; send a JSON object.'),
      };
    }
    // The connection is closed after the answer: the rest of an oversized body is never read.
    if (body.reason === 'too_large') c.header('Connection', 'close');
    return { ok: false, status: body.status, problem: problem(body.reason, jsonBodyMessage(body)) };
  }
  const value = body.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      status: 400,
      problem: problem('bad_request', `Send a JSON object, received ${describe(value)}.`),
    };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function approvalChoice(value: Record<string, unknown>): ApprovalChoice | string {
  if (value.action === 'allow') {
    const scope = value.scope ?? 'once';
    if (scope === 'once' || scope === 'session') return { action: 'allow', scope };
    return `"scope" is "once" or "session", received ${describe(scope)}.`;
  }
  if (value.action === 'deny') {
    const reason = typeof value.reason === 'string' ? value.reason.trim().slice(0, 1000) : '';
    return reason ? { action: 'deny', reason } : { action: 'deny' };
  }
  return `"action" is "allow" or "deny", received ${describe(value.action)}.`;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function keep<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > MAX_KEPT) list.splice(0, list.length - MAX_KEPT);
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** An audit entry as the page shows it: with who answered its ask, when a signed-in person did. */
type StudioAuditEntry = AuditEntry & { readonly answeredBy?: string };

/** What the studio's routes keep per request: the signed-in person's session, with sign-in on. */
type StudioEnv = { Variables: { session: StudioSession | undefined } };

function resolvedAuth(auth: AuthConfig | ResolvedAuthConfig): ResolvedAuthConfig {
  const resolved = auth as ResolvedAuthConfig;
  return resolved.scopes?.tools instanceof Map && typeof resolved.cacheSize === 'number'
    ? resolved
    : resolveAuthConfig(auth);
}

/** Who the page says is signed in (null without sign-in). */
function signedInOf(session: StudioSession | undefined) {
  if (!session) return null;
  const { subject, issuer, groups, roles } = session.principal;
  return {
    subject,
    issuer: issuer ?? null,
    name: session.displayName,
    groups,
    roles,
    expiresAt: new Date(session.expiresAt).toISOString(),
  };
}

/** Where to go after signing in: a path of the studio, never another site or a sign-in route. */
function safeReturn(path: string): string {
  return path.startsWith('/') &&
    !path.startsWith('//') &&
    !path.startsWith('/\\') &&
    !path.startsWith('/auth/')
    ? path
    : '/';
}

/** A small page for the sign-in routes: a title, what happened, and the way back in. */
function notice(c: Context<StudioEnv>, title: string, message: string, status: 200 | 400 | 502): Response {
  c.header(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  );
  const body = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><title>toolpact studio</title></head>',
    '<body style="font-family: system-ui, sans-serif; margin: 3rem auto; max-width: 40rem">',
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="notice">${escapeHtml(message)}</p>`,
    '<p><a href="/">Sign in to the studio</a></p>',
    '</body></html>',
    '',
  ].join('\n');
  return c.html(body, status);
}

/** The addresses of this machine's interfaces, as a Host header names them (IPv6 bracketed). */
function machineAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((each) => !each.internal)
    .map((each) => (each.family === 'IPv6' ? `[${each.address.split('%')[0]}]` : each.address));
}
