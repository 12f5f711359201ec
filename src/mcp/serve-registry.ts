import type { Readable, Writable } from 'node:stream';
import type { ServerEventBus } from '@modelcontextprotocol/server';
import { type AuditSink, combineAuditSinks } from '../audit/audit-sink.js';
import { AuthConfigError } from '../auth/auth-config.js';
import { ToolDefinitionError } from '../errors/index.js';
import { definePolicy } from '../policy/define-policy.js';
import type { Policy } from '../policy/policy.js';
import { createPolicyGate, type PolicyGate } from '../policy/policy-gate.js';
import { type CallRecord, Registry, type RegistryOptions } from '../registry/registry.js';
import type { ToolSearch } from '../search/with-tool-search.js';
import type { ApprovalsApiStore } from './approvals-api.js';
import type { McpClientChannel } from './client-channel.js';
import type { McpServerOptions, ToolListing } from './create-mcp-server.js';
import { elicitationApprover } from './elicitation-approver.js';
import type { HttpRoute } from './http-route.js';
import { RequestStateSealer } from './request-state.js';
import { type HttpServeOptions, type RunningHttpServer, serveHttp } from './serve-http.js';
import { serveStdio } from './serve-stdio.js';

/** The registry's out-of-band approval queue (`RegistryOptions.approvalQueue`). */
type ApprovalQueue = NonNullable<RegistryOptions['approvalQueue']>;

/**
 * What a fleet's shared store gives serving: `openPostgresStore` from `toolpact/store` answers one.
 * Each part is optional, so another store (or a test's) may give only what it has.
 */
export interface ServingStore {
  /** The shared audit log: a promise it answers holds the call's result until the record is committed. */
  readonly audit?: { readonly observe: (record: CallRecord) => unknown };
  /** The registry's out-of-band approval queue for the policy served. */
  approvalQueue?(policy: Policy): ApprovalQueue;
  /** The change-event bus every replica's `subscriptions/listen` streams share (HTTP only). */
  eventBus?(): Promise<ServerEventBus>;
  /** Marks a request state used, once across every replica. */
  claimState?(id: string, expiresAt: number): Promise<'claimed' | 'used'>;
  /**
   * The approval queue, served over HTTP as the approvals API beside the MCP endpoint when requests
   * are authenticated (`<path>/approvals`; see docs/auth.md).
   */
  readonly approvals?: ApprovalsApiStore;
}

/**
 * What OpenTelemetry gives serving: `servingTelemetry(await startTelemetry())` from `toolpact/otel`
 * answers one. Given as a value, so that `toolpact/mcp` never loads OpenTelemetry itself.
 */
export interface ServingTelemetry {
  /** Sends each call's audit record as a log record. */
  readonly audit?: AuditSink;
  /** Makes a span and metrics of every call of the served registry. */
  instrument?(registry: Registry): unknown;
}

/** The tools to serve, as a builder given to {@link serveRegistry} answers them. */
export interface ServedTools {
  readonly registry: Registry;
  /** What clients are listed instead of every registered tool. */
  readonly listing?: ToolListing;
  /** Tools listed from the start with search, kept when they are registered (the others are left out). */
  readonly alwaysLoaded?: readonly string[];
  /** What to close when serving ends (default: closing `registry`). */
  readonly close?: () => Promise<void>;
  /**
   * Starts what the tools call (an upstream MCP server, say): at once over HTTP and with search;
   * over stdio, when the `stdin` function takes charge of it (else at once too).
   */
  readonly begin?: () => void;
  /** Resolves when the listing is worth answering; serving waits for it where `begin` is called. */
  readonly ready?: () => Promise<void>;
  /** Over HTTP, handlers served beside the MCP endpoint after `http.routes` (the gateway's sign-in link). */
  readonly routes?: readonly HttpRoute[];
  /** Over stdio, told of the one client once it has opened a legacy connection (see `serveStdio`'s `onClient`). */
  readonly onClient?: (client: McpClientChannel) => void;
}

/** Builds the tools over the registry options serving prepared (the gate, the audit, the approvals). */
export type ServedToolsBuilder = (registryOptions: RegistryOptions) => Promise<ServedTools> | ServedTools;

/** Options of {@link serveRegistry}. Without `http`, it serves stdio. */
export interface ServeRegistryOptions extends Pick<McpServerOptions, 'name' | 'version' | 'pageSize'> {
  /** The policy every call is gated by (default: the category defaults, `definePolicy({ rules: [] })`). */
  readonly policy?: Policy;
  /** Where each call is recorded (`openAuditLog`, `openSqliteAuditLog`); they stay yours to close. */
  readonly audit?: AuditSink | readonly AuditSink[];
  /** A fleet's shared store: its audit log, approval queue, event bus and request-state claims. */
  readonly store?: ServingStore;
  /** Spans, metrics and audit log records (see {@link ServingTelemetry}). */
  readonly telemetry?: ServingTelemetry;
  /**
   * List only the always-loaded tools and `search_tools`: a 2025 client with a session is listed what
   * its searches load; a revision 2026-07-28 client (and every client when `http.stateless`) is
   * listed `call_tool` too. `alwaysLoaded` names must be served; `maxLoaded` defaults to 20.
   */
  readonly search?: boolean | { readonly alwaysLoaded?: readonly string[]; readonly maxLoaded?: number };
  /**
   * Who answers an `ask` the MCP client cannot (it has no elicitation); default nobody, so it is
   * denied. A client that can elicit is asked first.
   */
  readonly fallbackApprover?: RegistryOptions['approver'];
  /**
   * Seals revision 2026-07-28 approval states (default: `RequestStateSealer.fromEnvironment(env)`,
   * with the store's claims, so that a state is used once across the fleet).
   */
  readonly requestState?: RequestStateSealer;
  /** Where `TOOLPACT_STATE_KEY` is read (default `process.env`). */
  readonly env?: { readonly [name: string]: string | undefined };
  /** Serve Streamable HTTP with these options (`port` 0 picks a free one) instead of stdio. */
  readonly http?: Omit<HttpServeOptions, keyof McpServerOptions | 'requestState' | 'bus' | 'approvals'>;
  /**
   * Authenticate every HTTP request as an OAuth resource server (the same as `http.auth`; see
   * `docs/auth.md`). HTTP only: over stdio the client is the process that started the server.
   */
  readonly auth?: HttpServeOptions['auth'];
  /**
   * Over stdio, what to read (default `process.stdin`). A function is given the served tools and
   * answers the stream, taking charge of their `begin` and `ready` (to answer `initialize` before
   * the tools are ready, say).
   */
  readonly stdin?: Readable | ((served: ServedTools) => Readable);
  /** Over stdio, where to write (default `process.stdout`). */
  readonly stdout?: Writable;
}

/** A registry being served, from {@link serveRegistry}. */
export interface RegistryServer {
  /** The registry every call runs through, gated by the policy. */
  readonly registry: Registry;
  readonly gate: PolicyGate;
  /** The endpoint URL over HTTP; undefined over stdio. */
  readonly url: string | undefined;
  /** The HTTP server, when serving HTTP. */
  readonly http: RunningHttpServer | undefined;
  /** Resolves when serving ends: the stdio connection closed (either side), or `close()` ran. */
  readonly closed: Promise<void>;
  /** The search listing, with `search`. */
  readonly search: ToolSearch | undefined;
  /** The store's approval queue, with a store that has one. */
  readonly approvalQueue: ApprovalQueue | undefined;
  /** The store's event bus, over HTTP with a store that has one. */
  readonly bus: ServerEventBus | undefined;
  /** What seals approval states; `ephemeral` when no `TOOLPACT_STATE_KEY` was set. */
  readonly requestState: RequestStateSealer;
  /** Stops the transport, then closes the served registry (and what it owns). Idempotent. */
  close(): Promise<void>;
}

/** Codes of {@link ServeRegistryError}. */
export type ServeRegistryErrorCode = 'unknown_tool' | 'cannot_listen' | 'invalid_auth';

/**
 * Serving could not start: an always-loaded name that is not served (`unknown_tool`, with the served
 * names in `served`), an HTTP address that cannot be listened on (`cannot_listen`), or an `auth`
 * configuration whose parts cannot be used, such as an API keys file that is not one (`invalid_auth`).
 */
export class ServeRegistryError extends Error {
  override readonly name = 'ServeRegistryError';
  constructor(
    readonly code: ServeRegistryErrorCode,
    message: string,
    readonly detail: { readonly tool?: string; readonly served?: readonly string[] } = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Serves a registry over MCP with everything `toolpact serve` wires: the policy gate, the audit sinks
 * (each record committed to the store first, when there is one), the store's approval queue, event bus
 * and request-state claims, the request-state key, elicitation approvals, search and OpenTelemetry.
 * Given a Registry, it serves a gated copy of the tools it has now (the Registry stays yours); given a
 * builder, it builds the registry over the options it prepared (for tools that come and go).
 *
 * It lives in `toolpact/mcp` because serving is MCP: the store and OpenTelemetry come in as values, so
 * this entry loads neither `pg` nor OpenTelemetry; search loads only when asked for. What you pass in
 * (audit sinks, store, telemetry) stays yours: close it after `close()`.
 *
 * @example
 * const server = await serveRegistry(registry, { policy, audit: openAuditLog('audit.jsonl'), http: { port: 0 } });
 * console.log(server.url); // http://127.0.0.1:43121/mcp
 * await server.close();
 */
export async function serveRegistry(
  tools: Registry | ServedToolsBuilder,
  options: ServeRegistryOptions = {},
): Promise<RegistryServer> {
  if (options.auth !== undefined && !options.http) {
    throw new ToolDefinitionError(
      'invalid_option',
      'auth is given but not http: authentication applies to HTTP serving only (over stdio the client is the process that started the server). Give http options too, or drop auth.',
    );
  }
  const policy = options.policy ?? definePolicy({ rules: [] });
  const store = options.store;
  const requestState =
    options.requestState ??
    RequestStateSealer.fromEnvironment(
      options.env ?? process.env,
      store?.claimState ? { sharedClaim: (id, expiresAt) => store.claimState!(id, expiresAt) } : {},
    );
  const sinks = [
    ...(Array.isArray(options.audit) ? options.audit : options.audit ? [options.audit as AuditSink] : []),
    ...(options.telemetry?.audit ? [options.telemetry.audit] : []),
  ];
  const local = sinks.length === 0 ? undefined : sinks.length === 1 ? sinks[0] : combineAuditSinks(...sinks);
  const shared = store?.audit;
  // With a store, the record is committed there before the result goes out (the promise holds it).
  const observe = shared
    ? (record: CallRecord) => {
        local?.observe(record);
        return shared.observe(record);
      }
    : local?.observe;
  const gate = createPolicyGate(policy, observe ? { observe } : {});
  const approvalQueue = store?.approvalQueue?.(policy);
  const registryOptions: RegistryOptions = {
    ...gate.registryOptions,
    ...(approvalQueue ? { approvalQueue } : {}),
    // Asks go to the user at the MCP client, where it can elicit.
    approver: elicitationApprover(options.fallbackApprover ? { fallback: options.fallbackApprover } : {}),
  };
  const served =
    tools instanceof Registry
      ? { registry: new Registry(registryOptions).register(tools.list()) }
      : await tools(registryOptions);
  const registry = served.registry;
  const closeServed = served.close ?? (() => registry.close());
  try {
    options.telemetry?.instrument?.(registry);
    const http = options.http;
    const searching = options.search !== undefined && options.search !== false;
    if (http || searching || typeof options.stdin !== 'function') {
      served.begin?.();
      await served.ready?.();
    }
    const search = searching ? registry.own(await searchListing(registry, served, options)) : undefined;
    const listing = search ? (http?.stateless ? search.stateless : search) : served.listing;
    const bus = http && store?.eventBus ? await store.eventBus() : undefined;
    const common = {
      requestState,
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(options.version !== undefined ? { version: options.version } : {}),
      ...(options.pageSize !== undefined ? { pageSize: options.pageSize } : {}),
      ...(listing ? { listing } : {}),
    };
    let transport: { readonly close: () => Promise<void> };
    let running: RunningHttpServer | undefined;
    let ended: Promise<void>;
    if (http) {
      try {
        running = await serveHttp(registry, {
          ...common,
          ...http,
          ...(served.routes?.length ? { routes: [...(http.routes ?? []), ...served.routes] } : {}),
          ...(options.auth !== undefined ? { auth: options.auth } : {}),
          ...(bus ? { bus } : {}),
          ...(store?.approvals ? { approvals: store.approvals } : {}),
        });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (error instanceof AuthConfigError) {
          throw new ServeRegistryError(
            'invalid_auth',
            `The auth configuration cannot be used: ${reason}`,
            {},
            {
              cause: error,
            },
          );
        }
        const where = `${http.host ?? '127.0.0.1'}:${http.port ?? 0}`;
        throw new ServeRegistryError(
          'cannot_listen',
          `Cannot listen on ${where}: ${reason}`,
          {},
          { cause: error },
        );
      }
      transport = running;
      ended = new Promise<void>(() => {});
    } else {
      const stdin = typeof options.stdin === 'function' ? options.stdin(served) : options.stdin;
      const stdio = await serveStdio(registry, {
        ...common,
        ...(stdin ? { stdin } : {}),
        ...(options.stdout ? { stdout: options.stdout } : {}),
        ...(served.onClient ? { onClient: served.onClient } : {}),
      });
      transport = stdio;
      ended = stdio.closed;
    }
    let closing: Promise<void> | undefined;
    let stopped!: () => void;
    const closedByCall = new Promise<void>((resolve) => {
      stopped = resolve;
    });
    const close = () => {
      closing ??= (async () => {
        try {
          await transport.close();
        } finally {
          stopped();
          await closeServed();
        }
      })();
      return closing;
    };
    return {
      registry,
      gate,
      url: running?.url,
      http: running,
      closed: Promise.race([ended, closedByCall]),
      search,
      approvalQueue,
      bus,
      requestState,
      close,
    };
  } catch (error) {
    await closeServed().catch(() => {});
    throw error;
  }
}

/** The search listing over the served registry; an always-loaded name that is not served is refused. */
async function searchListing(
  registry: Registry,
  served: ServedTools,
  options: ServeRegistryOptions,
): Promise<ToolSearch> {
  const given = typeof options.search === 'object' ? options.search : {};
  const names = given.alwaysLoaded ?? [];
  for (const name of names) {
    if (!registry.has(name)) {
      const tools = registry.list().map((tool) => tool.contract.name);
      throw new ServeRegistryError(
        'unknown_tool',
        `search.alwaysLoaded names "${name}", which is not among the served tools: ${tools.join(', ')}. Name a served tool.`,
        { tool: name, served: tools },
      );
    }
  }
  const configured = (served.alwaysLoaded ?? []).filter((name) => registry.has(name));
  const { withToolSearch } = await import('../search/with-tool-search.js');
  return withToolSearch(registry, {
    alwaysLoaded: [...new Set([...names, ...configured])],
    ...(given.maxLoaded ? { maxLoaded: given.maxLoaded } : {}),
    ...(options.http?.stateless ? { stateless: true } : {}),
  });
}
