/**
 * The studio's sign-in: OpenID Connect authorization code with PKCE against the auth file's issuer,
 * through oauth4webapi, and the server-side sessions it opens. The browser holds only a random
 * session id (an HttpOnly cookie); the principal stays on the server.
 */
import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import {
  type ResolvedAuthConfig,
  type ResolvedStudioConfig,
  STUDIO_CALLBACK_PATH,
} from '../auth/auth-config.js';
import { principalFromClaims } from '../auth/claims-principal.js';
import type { Principal } from '../dispatch/principal.js';

/** Someone signed in to the studio. */
export interface StudioSession {
  readonly id: string;
  readonly principal: Principal;
  /** What the page shows: the `name`, else `preferred_username`, else `email`, else the subject. */
  readonly displayName: string;
  /** Milliseconds since the epoch: the ID token's expiry, or the configured maximum age, whichever is first. */
  readonly expiresAt: number;
  /** The ID token, kept for the provider's sign-out (`id_token_hint`); never sent to the page. */
  readonly idToken: string;
}

/** A sign-in that did not complete, with what to tell the person and the status to answer with. */
export interface SignInFailure {
  readonly status: 400 | 502;
  readonly message: string;
}

/** The sign-in of a studio, for its HTTP routes. */
export interface StudioSignIn {
  /** The issuer people sign in with. */
  readonly issuer: string;
  /** The redirect URI registered at the provider: the studio's origin followed by `/auth/callback`. */
  readonly redirectUri: string;
  /** Whether cookies carry `Secure` (the studio's origin is https). */
  readonly secure: boolean;
  /** The session cookie's name, and the pending sign-in's. */
  readonly cookies: { readonly session: string; readonly flow: string };
  /** Starts a sign-in that returns to `returnTo` (a path of the studio): its flow id and where to send the browser. */
  start(returnTo: string): Promise<{ readonly flow: string; readonly location: string }>;
  /** Completes the sign-in of `flow` with the provider's redirect: a new session, or why not. */
  finish(
    flow: string | undefined,
    callback: URL,
  ): Promise<
    | { readonly ok: true; readonly session: StudioSession; readonly returnTo: string }
    | ({ readonly ok: false } & SignInFailure)
  >;
  /** The live session of a cookie value, or undefined. */
  session(id: string | undefined): StudioSession | undefined;
  /** Ends a session; answers where to send the browser to sign out at the provider too, when it says. */
  end(id: string | undefined): string | undefined;
}

/** Options of {@link openStudioSignIn}. */
export interface StudioSignInOptions {
  /** The studio's origin as browsers reach it (`https://studio.example.com`, `http://127.0.0.1:4400`). */
  readonly origin: string;
  /** Where the client secret's variable is read (default `process.env`). */
  readonly env?: { readonly [name: string]: string | undefined };
  /** The clock, in milliseconds (default `Date.now`). */
  readonly now?: () => number;
}

/** Why the studio's sign-in cannot be set up (no `studio` section, a secret missing, the issuer unreachable). */
export class StudioSignInError extends Error {
  override readonly name = 'StudioSignInError';
}

// A sign-in left unfinished is forgotten after this long; at most this many wait at once.
const FLOW_TTL_MS = 10 * 60_000;
const MAX_FLOWS = 1_000;
const MAX_SESSIONS = 10_000;

interface Flow {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  readonly returnTo: string;
  readonly expiresAt: number;
}

/**
 * Sets up the studio's sign-in from the auth file's `studio` section: discovers the issuer's OpenID
 * Connect metadata (once, now), and keeps the pending sign-ins and the sessions in memory.
 *
 * @example
 * const signIn = await openStudioSignIn(loadAuthConfig('auth.json'), { origin: 'https://studio.example.com' });
 */
export async function openStudioSignIn(
  config: ResolvedAuthConfig,
  options: StudioSignInOptions,
): Promise<StudioSignIn> {
  const settings: ResolvedStudioConfig | undefined = config.studio;
  if (!settings) {
    throw new StudioSignInError(
      'The auth file has no "studio" section, so the studio cannot sign anyone in. Add { "studio": { "clientId": "…" } } naming the studio\'s client at your provider (see docs/studio.md).',
    );
  }
  const now = options.now ?? Date.now;
  const env = options.env ?? process.env;
  let clientAuth: oauth.ClientAuth = oauth.None();
  if (settings.clientSecretEnv !== undefined) {
    const secret = env[settings.clientSecretEnv];
    if (!secret) {
      throw new StudioSignInError(
        `The studio's client secret is read from the environment variable ${settings.clientSecretEnv} ($.studio.clientSecretEnv), which is not set. Set it, or drop clientSecretEnv for a public client.`,
      );
    }
    clientAuth = oauth.ClientSecretBasic(secret);
  }
  const issuerUrl = new URL(settings.issuer);
  // auth-config allows plain http for a loopback issuer only.
  const insecure = issuerUrl.protocol === 'http:';
  const request = () => ({ [oauth.allowInsecureRequests]: insecure, signal: AbortSignal.timeout(10_000) });
  let as: oauth.AuthorizationServer;
  try {
    as = await oauth.processDiscoveryResponse(
      issuerUrl,
      await oauth.discoveryRequest(issuerUrl, { algorithm: 'oidc', ...request() }),
    );
  } catch (error) {
    throw new StudioSignInError(
      `The studio cannot read the OpenID Connect metadata of ${settings.issuer} (${reasonOf(error)}). Check that the issuer is reachable from here and serves /.well-known/openid-configuration.`,
      { cause: error },
    );
  }
  if (!as.authorization_endpoint || !as.token_endpoint) {
    throw new StudioSignInError(
      `The metadata of ${settings.issuer} names no authorization or token endpoint, so the studio cannot sign anyone in with it.`,
    );
  }
  const client: oauth.Client = { client_id: settings.clientId };
  const redirectUri = `${options.origin}${STUDIO_CALLBACK_PATH}`;
  const secure = options.origin.startsWith('https:');
  const port = new URL(options.origin).port || (secure ? '443' : '80');
  // Cookies are not kept apart by port: the name carries it, so two studios on one host do not clash.
  const cookies = secure
    ? { session: '__Host-toolpact-studio', flow: '__Host-toolpact-studio-signin' }
    : { session: `toolpact-studio-${port}`, flow: `toolpact-studio-signin-${port}` };
  const flows = new Map<string, Flow>();
  const sessions = new Map<string, StudioSession>();
  const endSessionEndpoint =
    typeof as.end_session_endpoint === 'string' ? as.end_session_endpoint : undefined;

  const prune = <T extends { readonly expiresAt: number }>(map: Map<string, T>, max: number) => {
    const at = now();
    for (const [key, entry] of map) if (entry.expiresAt <= at) map.delete(key);
    while (map.size >= max) map.delete(map.keys().next().value as string);
  };
  const fail = (status: 400 | 502, message: string) => ({ ok: false as const, status, message });

  return {
    issuer: settings.issuer,
    redirectUri,
    secure,
    cookies,
    async start(returnTo) {
      prune(flows, MAX_FLOWS);
      const verifier = oauth.generateRandomCodeVerifier();
      const flow: Flow = {
        state: oauth.generateRandomState(),
        nonce: oauth.generateRandomNonce(),
        verifier,
        returnTo,
        expiresAt: now() + FLOW_TTL_MS,
      };
      const id = randomBytes(24).toString('base64url');
      flows.set(id, flow);
      const location = new URL(as.authorization_endpoint as string);
      for (const [key, value] of Object.entries({
        client_id: settings.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: settings.scopes.join(' '),
        state: flow.state,
        nonce: flow.nonce,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      })) {
        location.searchParams.set(key, value);
      }
      return { flow: id, location: location.href };
    },
    async finish(id, callback) {
      const flow = id === undefined ? undefined : flows.get(id);
      if (id !== undefined) flows.delete(id);
      if (!flow || flow.expiresAt <= now()) {
        return fail(
          400,
          'This sign-in is not one this browser started here, or it took longer than 10 minutes. Open the studio again to sign in.',
        );
      }
      let parameters: URLSearchParams;
      try {
        // Checks `state`, and `iss` (RFC 9207) when the provider sends it or says it does.
        parameters = oauth.validateAuthResponse(as, client, callback.searchParams, flow.state);
      } catch (error) {
        if (error instanceof oauth.AuthorizationResponseError) {
          return fail(
            400,
            `${settings.issuer} did not sign you in: ${error.error}${error.error_description ? ` (${error.error_description})` : ''}. Open the studio again to retry.`,
          );
        }
        return fail(
          400,
          `The answer from the provider does not belong to this sign-in (${reasonOf(error)}). Open the studio again to sign in.`,
        );
      }
      let claims: Record<string, unknown>;
      let idToken: string;
      try {
        const response = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          clientAuth,
          parameters,
          redirectUri,
          flow.verifier,
          request(),
        );
        const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
          expectedNonce: flow.nonce,
          requireIdToken: true,
        });
        const validated = oauth.getValidatedIdTokenClaims(result);
        if (!validated || typeof result.id_token !== 'string') throw new Error('no ID token came back');
        claims = { ...validated };
        idToken = result.id_token;
        // Groups and roles are often only at the userinfo endpoint; the ID token's own claims win.
        if (as.userinfo_endpoint && result.access_token) {
          const info = await oauth.processUserInfoResponse(
            as,
            client,
            validated.sub,
            await oauth.userInfoRequest(as, client, result.access_token, request()),
          );
          claims = { ...info, ...validated };
        }
      } catch (error) {
        return fail(
          502,
          `Signing in with ${settings.issuer} failed at its token or userinfo endpoint (${reasonOf(error)}). Check the studio's client settings ($.studio) at the provider, then open the studio again.`,
        );
      }
      const principal = principalFromClaims(claims, config.claims);
      if (!principal) return fail(502, `The ID token of ${settings.issuer} names no subject.`);
      prune(sessions, MAX_SESSIONS);
      const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : Number.POSITIVE_INFINITY;
      const session: StudioSession = Object.freeze({
        id: randomBytes(32).toString('base64url'),
        // A session is the studio's, not the caller's: no scopes of an access token come with it.
        principal: Object.freeze({ ...principal, scopes: Object.freeze([]) }),
        displayName:
          textOf(claims.name) ??
          textOf(claims.preferred_username) ??
          textOf(claims.email) ??
          principal.subject,
        expiresAt: Math.min(exp, now() + settings.sessionMaxAgeSeconds * 1000),
        idToken,
      });
      sessions.set(session.id, session);
      return { ok: true, session, returnTo: flow.returnTo };
    },
    session(id) {
      if (id === undefined) return undefined;
      const found = sessions.get(id);
      if (!found) return undefined;
      if (found.expiresAt > now()) return found;
      sessions.delete(id);
      return undefined;
    },
    end(id) {
      const found = id === undefined ? undefined : sessions.get(id);
      if (id !== undefined) sessions.delete(id);
      if (!found || !endSessionEndpoint) return undefined;
      const location = new URL(endSessionEndpoint);
      location.searchParams.set('id_token_hint', found.idToken);
      location.searchParams.set('client_id', settings.clientId);
      return location.href;
    },
  };
}

/**
 * A `Set-Cookie` value: HttpOnly, SameSite=Lax, Path=/, Secure on https; `maxAgeSeconds` 0 clears it.
 *
 * @example
 * setCookie('toolpact-studio-4400', id, { secure: false, maxAgeSeconds: 3600 });
 */
export function setCookie(
  name: string,
  value: string,
  options: { readonly secure: boolean; readonly maxAgeSeconds: number },
): string {
  return [
    `${name}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 200) : undefined;
}

function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`.slice(0, 500);
  }
  return String(error).slice(0, 500);
}
