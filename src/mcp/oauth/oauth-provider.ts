import { randomBytes } from 'node:crypto';
import type {
  AddClientAuthentication,
  FetchLike,
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import {
  clientCredentialsMetadata,
  clientCredentialsProblem,
  clientCredentialsRequest,
  privateKeyJwt,
} from './client-credentials.js';
import type { McpSignInRecord, McpTokenStore } from './token-store.js';

/**
 * How a connection to a remote MCP server signs in with OAuth (the MCP authorization spec, client
 * side). The protocol is the v2 SDK client's: discovery (RFC 9728, RFC 8414 with the OpenID fallback),
 * client identity (a Client ID Metadata Document, a pre-registered client, or dynamic registration),
 * the authorization code with PKCE S256 and the `resource` indicator (RFC 8707), refresh, step-up on
 * `insufficient_scope`, and the `iss` check (RFC 9207). toolpact adds where the tokens are kept, whose
 * they are, the checks of {@link refuseWithoutPkce} and the state check, and the refresh before use.
 * With `grant: 'client_credentials'` no person signs in: toolpact signs in as a registered client.
 *
 * @example
 * // A person signs in through the browser, once; the tokens are kept encrypted.
 * const auth: McpOAuth = { store: fileTokenStore(defaultTokenFile()), signIn: loopbackSignIn({ open }) };
 * // A service signs in as itself, with a key the authorization server registered.
 * const service: McpOAuth = {
 *   store: memoryTokenStore(),
 *   grant: 'client_credentials',
 *   clientId: 'nightly-report',
 *   clientKey: { privateKey: process.env.REPORT_KEY_PEM!, algorithm: 'ES256' },
 * };
 */
export interface McpOAuth {
  /** Where the sign-in is kept (see {@link fileTokenStore}). */
  readonly store: McpTokenStore;
  /** The name the sign-in is kept under: the gateway's server name. Default: the server's URL. */
  readonly server?: string;
  /** Whose sign-in this is. Default `local` (the person running toolpact). */
  readonly principal?: string;
  /**
   * A pre-registered client: its id, and its secret when it is a confidential client. Used when the
   * authorization server does not take {@link clientMetadataUrl}.
   */
  readonly clientId?: string;
  readonly clientSecret?: string;
  /**
   * The issuer URL of the authorization server that registered {@link clientId}. Given, the
   * client's credentials go to that server only: a server whose metadata sends the sign-in to
   * another is refused before anything is sent there. Without it, a client with a secret or key is
   * bound to the first authorization server the MCP server sends anyone to (kept in `store`, once
   * per server), which a hostile MCP server could choose on that first sign-in: give it.
   */
  readonly issuer?: string;
  /**
   * The https URL of this client's Client ID Metadata Document, used as the client id by an
   * authorization server that says `client_id_metadata_document_supported`.
   */
  readonly clientMetadataUrl?: string;
  /** Scopes to ask for; by default those of the server's challenge or metadata. */
  readonly scope?: string;
  /** The name shown on the consent page (dynamic registration). Default `toolpact`. */
  readonly clientName?: string;
  /**
   * Sends the person to the authorization server and brings back where it redirected. Without it the
   * connection does not sign in: a server that needs a sign-in fails with {@link McpSignInRequiredError}.
   * Not used with `grant: 'client_credentials'`.
   */
  readonly signIn?: McpSignInDriver;
  /**
   * How the tokens are obtained. `authorization_code` (the default): a person signs in, through
   * {@link signIn}. `client_credentials`: no person and no browser; toolpact signs in as the client
   * `clientId` itself, for a server-to-server connection (OAuth 2.1 §4.2, the MCP extension
   * `io.modelcontextprotocol/oauth-client-credentials`). It proves who it is with exactly one of
   * `clientSecret` (HTTP Basic) and {@link clientKey} (a signed assertion), and takes a new token
   * whenever the one it has lapses or is refused, never a sign-in. The tokens are kept in `store`
   * like a person's.
   */
  readonly grant?: 'authorization_code' | 'client_credentials';
  /**
   * The client's private key, for `grant: 'client_credentials'` with `private_key_jwt` (RFC 7523
   * §2.2): each token request carries an assertion signed with it for the authorization server's
   * issuer. `privateKey` is a PKCS#8 PEM; `algorithm` an asymmetric JWS algorithm (default `ES256`).
   */
  readonly clientKey?: { readonly privateKey: string; readonly algorithm?: string };
}

/** Sends a person through the authorization server's pages (see {@link loopbackSignIn}). */
export interface McpSignInDriver {
  /** The redirect URI the authorization server sends the browser back to. */
  readonly redirectUrl: string;
  /** Sends the person to `authorizationUrl`; resolves with the URL the browser was sent back to. */
  visit(authorizationUrl: URL): Promise<URL>;
}

/** The server needs a sign-in, and the connection was given no way to run one (no `signIn`). */
export class McpSignInRequiredError extends Error {
  override readonly name = 'McpSignInRequiredError';
  constructor(
    /** The name the sign-in is kept under. */
    readonly server: string,
    readonly principal: string,
  ) {
    super(
      `The MCP server ${server} needs a sign-in${principal === LOCAL_PRINCIPAL ? '' : ` for ${principal}`}, and none is kept. Run: toolpact gateway login ${server}`,
    );
  }
}

/** A sign-in that was refused: the server or its authorization server broke a rule. */
export class McpSignInError extends Error {
  override readonly name = 'McpSignInError';
}

export const LOCAL_PRINCIPAL = 'local';
/**
 * Where the authorization server a configured client is bound to is kept, beside the server's
 * sign-ins: a name no principal has (a principal is `local` or `auth:…`).
 */
const CLIENT_PIN = '\u0000client-issuer';
/** A token this close to its expiry is refreshed before it is sent. */
const EXPIRY_MARGIN_MS = 30_000;
const FALLBACK_REDIRECT = 'http://127.0.0.1/callback';

/**
 * The SDK's `OAuthClientProvider` over a {@link McpTokenStore}, for one server and one principal.
 * Not part of the public API: pass {@link McpOAuth} to `connectMcpServer` or `importMcpTools`.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  readonly server: string;
  readonly principal: string;
  /** The authorization URL of the sign-in under way, once the SDK has built it. */
  pendingAuthorization: URL | undefined;
  /**
   * True while an authorization the SDK began over this provider (discovery, refresh or sign-in) has
   * not ended with tokens kept: a failure then is the sign-in's.
   */
  authorizationStarted = false;
  /** The SDK read the verifier: the tokens it saves next come from a redeemed code. */
  private verifierRead = false;
  /** Signs token requests with the client's key (`private_key_jwt`); the SDK's own client auth otherwise. */
  readonly addClientAuthentication?: AddClientAuthentication;
  private readonly clientCredentials: boolean;
  private refreshing: Promise<void> | undefined;
  private lastRefreshFailed = 0;

  constructor(
    private readonly options: McpOAuth,
    private readonly serverUrl: URL,
    private readonly fetchFn: FetchLike | undefined = undefined,
  ) {
    this.server = options.server ?? `${serverUrl.origin}${serverUrl.pathname}`;
    this.principal = options.principal ?? LOCAL_PRINCIPAL;
    if (options.clientMetadataUrl !== undefined) {
      let url: URL | undefined;
      try {
        url = new URL(options.clientMetadataUrl);
      } catch {}
      if (url?.protocol !== 'https:' || url.pathname === '/') {
        throw new McpSignInError(
          `clientMetadataUrl must be an https URL with a path, where the client's metadata document is served; received "${options.clientMetadataUrl}".`,
        );
      }
    }
    if (options.clientSecret !== undefined && options.clientId === undefined) {
      throw new McpSignInError('A clientSecret was given without its clientId. Give both, or neither.');
    }
    if (options.issuer !== undefined) {
      let issuer: URL | undefined;
      try {
        issuer = new URL(options.issuer);
      } catch {}
      if ((issuer?.protocol !== 'https:' && issuer?.protocol !== 'http:') || options.clientId === undefined) {
        throw new McpSignInError(
          `issuer names the authorization server that registered clientId: give both, and issuer as its http(s) URL; received issuer "${options.issuer}"${options.clientId === undefined ? ' and no clientId' : ''}.`,
        );
      }
    }
    const problem = clientCredentialsProblem(options);
    if (problem) throw new McpSignInError(problem);
    this.clientCredentials = options.grant === 'client_credentials';
    if (this.clientCredentials && options.clientId !== undefined && options.clientKey !== undefined) {
      this.addClientAuthentication = privateKeyJwt(options.clientId, options.clientKey);
    }
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  /** None for the client-credentials grant: the SDK then asks for a token with no redirect. */
  get redirectUrl(): string | undefined {
    if (this.clientCredentials) return undefined;
    return this.options.signIn?.redirectUrl ?? FALLBACK_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    if (this.clientCredentials) return clientCredentialsMetadata(this.options) as OAuthClientMetadata;
    return {
      client_name: this.options.clientName ?? 'toolpact',
      redirect_uris: [this.redirectUrl ?? FALLBACK_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.options.clientSecret !== undefined ? 'client_secret_basic' : 'none',
      // A native client (RFC 8252): its loopback redirect may take any port.
      application_type: 'native',
      ...(this.options.scope !== undefined ? { scope: this.options.scope } : {}),
    } as OAuthClientMetadata;
  }

  private async record(): Promise<McpSignInRecord> {
    return (await this.options.store.read(this.server, this.principal)) ?? {};
  }

  private async update(change: (record: McpSignInRecord) => McpSignInRecord): Promise<void> {
    await this.options.store.write(this.server, this.principal, change(await this.record()));
  }

  async state(): Promise<string> {
    const state = randomBytes(16).toString('base64url');
    // Without a way to sign in, nothing is kept: a sign-in under way elsewhere (the team sign-in
    // link, `gateway login`) keeps its own state and verifier.
    if (this.options.signIn) await this.update((record) => ({ ...record, state }));
    return state;
  }

  /** The `state` the sign-in under way was started with. */
  async expectedState(): Promise<string | undefined> {
    return (await this.record()).state;
  }

  async clientInformation(
    ctx?: OAuthClientInformationContext,
  ): Promise<StoredOAuthClientInformation | undefined> {
    const record = await this.record();
    const configured = this.options.clientId;
    if (configured !== undefined) {
      // A metadata document URL goes first where the authorization server takes one.
      const takesDocument =
        record.discovery?.authorizationServerMetadata?.client_id_metadata_document_supported;
      if (this.options.clientMetadataUrl && takesDocument === true)
        return record.client?.client_id === this.options.clientMetadataUrl ? record.client : undefined;
      // A client with a secret or key and no issuer is bound to the first authorization server it is
      // used with, by anyone: kept once per server (not per person), so that a server cannot send a
      // later sign-in's credentials somewhere else.
      const holdsSecret = this.options.clientSecret !== undefined || this.options.clientKey !== undefined;
      let pinned: string | undefined;
      if (holdsSecret && this.options.issuer === undefined) {
        const pin = await this.options.store.read(this.server, CLIENT_PIN);
        pinned = pin?.clientIssuer;
        if (pinned === undefined && ctx?.issuer) {
          await this.options.store.write(this.server, CLIENT_PIN, { clientIssuer: ctx.issuer });
          pinned = ctx.issuer;
        }
      }
      const registeredWith = this.options.issuer ?? (holdsSecret ? pinned : undefined);
      if (
        registeredWith !== undefined &&
        ctx?.issuer !== undefined &&
        !sameIssuer(registeredWith, ctx.issuer)
      ) {
        throw new McpSignInError(
          `The MCP server ${this.server} sends its sign-in to the authorization server ${ctx.issuer}, but the client "${configured}" was registered with ${registeredWith}, so toolpact sends it nothing. If the server has moved, set issuer to the new authorization server once its operator confirms it.`,
        );
      }
      return {
        client_id: configured,
        ...(this.options.clientSecret !== undefined ? { client_secret: this.options.clientSecret } : {}),
        ...((registeredWith ?? ctx?.issuer) ? { issuer: registeredWith ?? ctx?.issuer } : {}),
      } as StoredOAuthClientInformation;
    }
    const client = record.client;
    if (!client) return undefined;
    // A registration made for another redirect URI (another loopback port) is made again.
    const registered = (client as { redirect_uris?: readonly string[] }).redirect_uris;
    const redirectUrl = this.redirectUrl;
    if (this.options.signIn && registered && redirectUrl && !registered.includes(redirectUrl))
      return undefined;
    return client;
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    if (this.options.clientId !== undefined && client.client_id === this.options.clientId) return;
    await this.update((record) => ({ ...record, client }));
  }

  async tokens(ctx?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined> {
    let record = await this.record();
    // Before every request (no ctx): a token about to expire is refreshed first.
    if (ctx === undefined && (await this.refreshIfExpiring(record))) record = await this.record();
    const tokens = record.tokens;
    if (!tokens) return undefined;
    const { obtainedAt: _obtainedAt, ...rest } = tokens;
    return rest as StoredOAuthTokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    this.authorizationStarted = false;
    await this.update((record) => ({
      ...record,
      tokens: {
        ...tokens,
        // A refresh answered without a new refresh token keeps the one it was made with.
        ...(tokens.refresh_token === undefined && record.tokens?.refresh_token !== undefined
          ? { refresh_token: record.tokens.refresh_token }
          : {}),
        obtainedAt: Date.now(),
      },
      // A code was redeemed: its sign-in is over. A refresh leaves a sign-in under way untouched.
      ...(this.verifierRead ? { verifier: undefined, state: undefined } : {}),
    }));
    this.verifierRead = false;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (!this.options.signIn) throw new McpSignInRequiredError(this.server, this.principal);
    this.pendingAuthorization = authorizationUrl;
  }

  /** The client-credentials token request; undefined leaves the authorization-code one to the SDK. */
  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    return this.clientCredentials ? clientCredentialsRequest(scope) : undefined;
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    if (this.options.signIn) await this.update((record) => ({ ...record, verifier }));
  }

  async codeVerifier(): Promise<string> {
    this.verifierRead = true;
    const verifier = (await this.record()).verifier;
    if (!verifier) throw new McpSignInError('No sign-in is under way for this server: start it again.');
    return verifier;
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    refuseWithoutPkce(discovery);
    await this.update((record) => ({ ...record, discovery }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    // The SDK reads it first thing in every authorization.
    this.authorizationStarted = true;
    return (await this.record()).discovery;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    await this.update((record) => {
      switch (scope) {
        case 'all':
          return {};
        case 'client':
          return { ...record, client: undefined };
        case 'tokens':
          return { ...record, tokens: undefined };
        case 'verifier':
          return { ...record, verifier: undefined, state: undefined };
        case 'discovery':
          return { ...record, discovery: undefined };
      }
    });
  }

  /**
   * The authorization server's refusal of the client-credentials grant (a wrong secret or key, a
   * client not allowed the grant or the scope), said for the operator; undefined for any other
   * error. Neither the secret nor the key is quoted.
   */
  async refusal(error: unknown): Promise<McpSignInError | undefined> {
    if (!this.clientCredentials) return undefined;
    const { OAuthError } = await import('@modelcontextprotocol/client');
    const refused = findCause(error, (cause) => OAuthError.isInstance(cause)) as
      | InstanceType<typeof OAuthError>
      | undefined;
    if (!refused) return undefined;
    const proof = this.options.clientKey !== undefined ? 'clientKey' : 'clientSecret';
    return new McpSignInError(
      `The authorization server refused the client "${this.options.clientId}" signing in to ${this.server}: ${refused.code}${refused.message ? ` (${refused.message})` : ''}. Check the clientId and its ${proof} against the client the authorization server registered, and that it may use the client_credentials grant.`,
      { cause: error },
    );
  }

  /**
   * The fetch the transport sends its requests with: a 401 to a request of the server's that carried
   * a token drops the kept discovery, so that the SDK's next `auth()` reads the server's metadata
   * again and follows it to another authorization server (SEP-2352). The SDK never drops it itself.
   */
  watchRejections(next: FetchLike = fetch): FetchLike {
    const endpoint = `${this.serverUrl.origin}${this.serverUrl.pathname}`;
    return async (input, init) => {
      const response = await next(input, init);
      if (response.status === 401 && new Headers(init?.headers).has('authorization')) {
        const url = new URL(input instanceof Request ? input.url : String(input));
        if (`${url.origin}${url.pathname}` === endpoint) await this.invalidateCredentials('discovery');
      }
      return response;
    };
  }

  /**
   * Refreshes a token that is about to expire before it is sent, once at a time (a rotated refresh
   * token may be spent only once); with the client-credentials grant, takes a new one. A failed
   * refresh leaves the token as it is: the server's 401 then runs the SDK's own path, which moves to
   * a new sign-in.
   */
  private async refreshIfExpiring(record: McpSignInRecord): Promise<boolean> {
    const tokens = record.tokens;
    if (!tokens || (!tokens.refresh_token && !this.clientCredentials)) return false;
    if (tokens.expires_in === undefined || tokens.obtainedAt === undefined) return false;
    // A token shorter-lived than twice the margin is refreshed at half its life, not before every use.
    const margin = Math.min(EXPIRY_MARGIN_MS, (tokens.expires_in * 1_000) / 2);
    if (tokens.obtainedAt + tokens.expires_in * 1_000 - margin > Date.now()) return false;
    if (Date.now() - this.lastRefreshFailed < 5_000) return false;
    this.refreshing ??= (async () => {
      const { auth } = await import('@modelcontextprotocol/client');
      try {
        const result = await auth(this, {
          serverUrl: this.serverUrl,
          ...(this.fetchFn ? { fetchFn: this.fetchFn } : {}),
        });
        if (result !== 'AUTHORIZED') this.lastRefreshFailed = Date.now();
      } catch (error) {
        this.lastRefreshFailed = Date.now();
        if (error instanceof McpSignInRequiredError) throw error;
      }
    })().finally(() => {
      this.refreshing = undefined;
    });
    await this.refreshing;
    return true;
  }
}

/** One issuer identifier, spelled with or without a trailing slash (RFC 8414 §3.3's one tolerance). */
function sameIssuer(a: string, b: string): boolean {
  return a.replace(/\/$/, '') === b.replace(/\/$/, '');
}

/**
 * Refuses an authorization server that does not say it supports PKCE with S256: the MCP
 * authorization spec requires the client to stop when `code_challenge_methods_supported` is absent
 * or lacks `S256` (the SDK checks only a list that is present).
 */
export function refuseWithoutPkce(discovery: OAuthDiscoveryState): void {
  const metadata = discovery.authorizationServerMetadata;
  if (!metadata) return;
  const methods = (metadata as { code_challenge_methods_supported?: unknown })
    .code_challenge_methods_supported;
  if (!Array.isArray(methods) || !methods.includes('S256')) {
    throw new McpSignInError(
      `The authorization server ${String(metadata.issuer)} does not say it supports PKCE with S256 (code_challenge_methods_supported is ${methods === undefined ? 'absent' : JSON.stringify(methods)}), so toolpact will not sign in there: without PKCE a stolen authorization code can be redeemed. Ask the server's operator to enable PKCE.`,
    );
  }
}

/**
 * The first error among `error` and its causes (five deep) that `match` picks.
 *
 * @example
 * const signIn = findCause(error, (cause) => cause instanceof McpSignInRequiredError);
 */
export function findCause(error: unknown, match: (cause: Error) => boolean): Error | undefined {
  for (
    let current = error, depth = 0;
    current instanceof Error && depth < 5;
    current = current.cause, depth++
  ) {
    if (match(current)) return current;
  }
  return undefined;
}

/**
 * The sign-in a failed start or call is waiting on, found in the error or its causes.
 *
 * @example
 * if (signInRequiredOf(error)) setState('needs_login');
 */
export function signInRequiredOf(error: unknown): McpSignInRequiredError | undefined {
  return findCause(error, (cause) => cause instanceof McpSignInRequiredError) as
    | McpSignInRequiredError
    | undefined;
}
