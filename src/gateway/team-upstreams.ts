import type { HttpRoute } from '../mcp/http-route.js';
import type { GatewayServer } from './config/types.js';
import { type PrincipalUpstreams, principalUpstreams } from './principal-upstreams.js';
import { type TeamSignInServer, teamSignIn } from './team-signin.js';
import { type UpstreamTargetContext, upstreamAuth } from './upstream-target.js';

/** Where a team gateway is reached: what {@link teamUpstreams} needs beyond its servers. */
export interface TeamGatewayOptions {
  /** The MCP endpoint's path (e.g. `/mcp`): the sign-in link is served under `<path>/signin`. */
  readonly path: string;
  /** The MCP endpoint's public URL (the auth configuration's `resource`), named in `auth_required`. */
  readonly publicUrl: string;
}

/** The per-person side of a team gateway: a connection pool and a sign-in link per server that signs in. */
export interface TeamUpstreams {
  /** The public URL people sign in through (`toolpact gateway login <server> --gateway <publicUrl>`). */
  readonly publicUrl: string;
  /** The pool a person's calls to `server` go through; undefined for a server that does not sign in. */
  pool(server: string): PrincipalUpstreams | undefined;
  /** The sign-in link, to serve beside the MCP endpoint. */
  readonly route: HttpRoute;
  /** Follows a new config: a server that changed how it is reached gets a new pool, a removed one none. */
  apply(servers: readonly GatewayServer[]): Promise<void>;
  /** Closes every pool. */
  close(): Promise<void>;
}

interface Signing {
  /** What the pool was built from: a change of it builds a new one. */
  readonly key: string;
  readonly pool: PrincipalUpstreams;
}

/**
 * The per-person upstreams of a gateway that authenticates its callers: for each enabled remote server
 * that signs in (its entry has no `Authorization` header), one {@link principalUpstreams} pool, which
 * calls as the caller with that caller's own sign-in, and the {@link teamSignIn} link where each person
 * makes it. Both share the server's OAuth settings over the gateway's token store, without a principal.
 *
 * @example
 * const team = teamUpstreams(config.servers, { configFile, tokens }, { path: '/mcp', publicUrl: auth.resource });
 * await team.pool('linear')?.call(upstreamPrincipalId(principal), 'list_issues', {}, signal);
 */
export function teamUpstreams(
  servers: readonly GatewayServer[],
  context: UpstreamTargetContext,
  options: TeamGatewayOptions,
): TeamUpstreams {
  const signing = new Map<string, Signing>();
  // The link reads this record at each request, so it follows `apply`.
  const linked: Record<string, TeamSignInServer> = {};
  const apply = async (next: readonly GatewayServer[]) => {
    const wanted = new Map(
      next.flatMap((spec) => {
        const settings = signingSettings(spec, context);
        return settings ? [[spec.name, settings] as const] : [];
      }),
    );
    const retired: PrincipalUpstreams[] = [];
    for (const [name, each] of signing) {
      if (wanted.get(name)?.key === each.key) continue;
      retired.push(each.pool);
      signing.delete(name);
      delete linked[name];
    }
    for (const [name, settings] of wanted) {
      if (signing.has(name)) continue;
      const { key, ...server } = settings;
      signing.set(name, { key, pool: principalUpstreams(server) });
      linked[name] = { url: server.url, auth: server.auth };
    }
    await Promise.allSettled(retired.map((pool) => pool.close()));
  };
  void apply(servers);
  const publicUrl = options.publicUrl.replace(/\/+$/, '');
  return {
    publicUrl,
    pool: (server) => signing.get(server)?.pool,
    route: teamSignIn({ path: options.path, publicUrl, servers: linked }),
    apply,
    async close() {
      const all = [...signing.values()];
      signing.clear();
      await Promise.allSettled(all.map((each) => each.pool.close()));
    },
  };
}

/** How a person reaches `spec` with their own sign-in; undefined when it does not sign in. */
function signingSettings(
  spec: GatewayServer,
  context: UpstreamTargetContext,
):
  | { key: string; url: string; headers: { readonly [name: string]: string }; auth: TeamSignInServer['auth'] }
  | undefined {
  if (!spec.enabled || spec.target.kind !== 'http') return undefined;
  const oauth = upstreamAuth(spec, context);
  if (!oauth) return undefined;
  const { principal: _local, ...auth } = oauth;
  const { url, headers } = spec.target;
  return { key: JSON.stringify(spec.target), url, headers, auth };
}
