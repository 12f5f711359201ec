// The studio behind sign-in, over HTTP without a browser: panva's oidc-provider in process on
// loopback, the studio signing people in with the authorization code and PKCE, sessions, refusals,
// and the refusal to listen on the network without auth.
import { type IncomingMessage, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Registry } from '../../src/index.js';
import { definePolicy } from '../../src/policy/index.js';
import { type RunningStudio, type StudioOptions, startStudio } from '../../src/studio/index.js';
import {
  STUDIO_CLIENT,
  STUDIO_CONFIDENTIAL_CLIENT,
  signIn,
  startProvider,
  type TestProvider,
} from '../support/oidc-provider.js';
import { deploy } from './deploy-tool.js';

const policy = definePolicy({
  rules: [{ id: 'ask-deploys', action: 'ask', tool: 'deploy', reason: 'a production deploy' }],
});

/** A GET of / on a loopback port with the Host header given (fetch does not let a test set Host). */
function rawGet(port: number, host: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path: '/', headers: { host } }, (response) => {
      response.resume();
      resolve(response);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** A browser's cookie jar over fetch, redirects left to the caller. */
class Jar {
  readonly cookies = new Map<string, string>();
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) {
      headers.set('cookie', [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    }
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value === '' || /max-age=0\b/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
}

describe('the studio behind OpenID Connect sign-in', () => {
  let provider: TestProvider;
  let studio: RunningStudio;
  let origin: string;

  const authConfig = (client: string, extra: Record<string, unknown> = {}) => ({
    resource: 'http://127.0.0.1/mcp',
    issuers: [provider.issuer],
    claims: { groups: 'groups' },
    studio: { clientId: client, scopes: ['openid', 'groups'], ...extra },
  });
  const options = (more: Partial<StudioOptions>): StudioOptions => ({
    label: 'deploys',
    policy,
    load: (registryOptions) => ({ registry: new Registry(registryOptions).register(deploy) }),
    ...more,
  });

  /** Opens the studio in `jar`, signs in at the provider as `user`, and comes back through the callback. */
  async function signInAs(jar: Jar, user: string, callbackQuery?: (query: URLSearchParams) => void) {
    const first = await jar.fetch(`${origin}/`);
    expect(first.status).toBe(302);
    const authorization = new URL(first.headers.get('location')!);
    const query = await signIn(authorization, user, `${origin}/auth/callback`);
    callbackQuery?.(query);
    return jar.fetch(`${origin}/auth/callback?${query}`);
  }

  beforeAll(async () => {
    provider = await startProvider();
    studio = await startStudio(
      options({
        auth: authConfig(STUDIO_CONFIDENTIAL_CLIENT.id, { clientSecretEnv: 'STUDIO_TEST_SECRET' }),
        env: { STUDIO_TEST_SECRET: STUDIO_CONFIDENTIAL_CLIENT.secret },
      }),
    );
    origin = new URL(studio.url).origin;
  });
  afterAll(async () => {
    await studio?.close();
    await provider?.close();
  });

  test('without a session the page redirects to the provider with PKCE, state and nonce; the API answers 401', async () => {
    expect(studio.url).toBe(`${origin}/`);
    const jar = new Jar();
    const page = await jar.fetch(`${origin}/`);
    expect(page.status).toBe(302);
    const location = new URL(page.headers.get('location')!);
    expect(location.origin).toBe(provider.issuer);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      client_id: STUDIO_CONFIDENTIAL_CLIENT.id,
      redirect_uri: `${origin}/auth/callback`,
      response_type: 'code',
      scope: 'openid groups',
      code_challenge_method: 'S256',
      state: expect.any(String),
      nonce: expect.any(String),
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
    });
    const flowCookie = page.headers.getSetCookie().join('\n');
    expect(flowCookie).toMatch(/HttpOnly/);
    expect(flowCookie).toMatch(/SameSite=Lax/);
    expect(flowCookie).not.toMatch(/Secure/);

    for (const path of ['api/overview', 'api/queue', 'api/events']) {
      const api = await fetch(`${origin}/${path}`);
      expect(api.status).toBe(401);
      const body = (await api.json()) as { error: { type: string; message: string } };
      expect(body.error.type).toBe('not_signed_in');
      expect(body.error.message).toContain(`Open ${origin}/`);
    }
    const call = await fetch(`${origin}/api/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ tool: 'deploy', arguments: { service: 'api' } }),
    });
    expect(call.status).toBe(401);
  });

  test('bob signs in: the session cookie is HttpOnly and Lax, and the page says who is signed in with his groups', async () => {
    const jar = new Jar();
    const back = await signInAs(jar, 'bob');
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe('/');
    const cookie = back.headers
      .getSetCookie()
      .find((line) => line.startsWith(`toolpact-studio-${new URL(origin).port}=`))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Max-Age=[1-9]\d*/);
    const page = await jar.fetch(`${origin}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('toolpact studio');
    const overview = (await (await jar.fetch(`${origin}/api/overview`)).json()) as {
      signedIn: { subject: string; issuer: string; groups: string[] };
    };
    expect(overview.signedIn).toMatchObject({
      subject: 'bob',
      issuer: provider.issuer,
      groups: ['leads', 'developers'],
    });
  });

  test('a callback with a wrong state, a wrong iss, or from another browser is refused, and opens no session', async () => {
    const tampered = new Jar();
    const wrongState = await signInAs(tampered, 'alice', (query) => query.set('state', 'not-the-state'));
    expect(wrongState.status).toBe(400);
    expect(await wrongState.text()).toContain('does not belong to this sign-in');
    expect(tampered.cookies.has(`toolpact-studio-${new URL(origin).port}`)).toBe(false);
    expect((await tampered.fetch(`${origin}/api/overview`)).status).toBe(401);

    const wrongIssuer = await signInAs(new Jar(), 'alice', (query) =>
      query.set('iss', 'http://127.0.0.1:1/other'),
    );
    expect(wrongIssuer.status).toBe(400);
    expect(await wrongIssuer.text()).toContain('unexpected &#34;iss&#34; (issuer) response parameter value');

    // The provider's answer replayed in a browser that did not start the sign-in.
    const starter = new Jar();
    const first = await starter.fetch(`${origin}/`);
    const query = await signIn(new URL(first.headers.get('location')!), 'alice', `${origin}/auth/callback`);
    const elsewhere = await new Jar().fetch(`${origin}/auth/callback?${query}`);
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toContain('not one this browser started');
    // And a flow is used once: the right browser, after that, cannot complete it either.
    const refused = await new Jar().fetch(`${origin}/auth/callback?${query}`);
    expect(refused.status).toBe(400);
  });

  test("an ask is answered by the signed-in person, and the page's audit records who; another origin cannot drive it", async () => {
    const jar = new Jar();
    await signInAs(jar, 'bob');
    const foreign = await jar.fetch(`${origin}/api/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1:9' },
      body: JSON.stringify({ tool: 'deploy', arguments: { service: 'api' } }),
    });
    expect(foreign.status).toBe(403);

    const called = jar.fetch(`${origin}/api/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ tool: 'deploy', arguments: { service: 'api' } }),
    });
    // Wait for the ask to reach the page's queue.
    let pending: { id: string }[] = [];
    while (pending.length === 0) {
      pending = (await (await jar.fetch(`${origin}/api/approvals`)).json()) as { id: string }[];
    }
    const answered = await jar.fetch(`${origin}/api/approvals/${pending[0]!.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ action: 'allow', scope: 'once' }),
    });
    expect(answered.status).toBe(200);
    expect(JSON.parse(((await (await called).json()) as { text: string }).text)).toEqual({
      ok: true,
      result: { deployed: 'api' },
    });
    const audit = (await (await jar.fetch(`${origin}/api/audit`)).json()) as {
      tool: string;
      answeredBy?: string;
      decision: { approval: string };
    }[];
    expect(audit.at(-1)).toMatchObject({ tool: 'deploy', answeredBy: 'bob', decision: { approval: 'once' } });
  });

  test('signing out ends the session: the API answers 401 again', async () => {
    const jar = new Jar();
    await signInAs(jar, 'alice');
    expect((await jar.fetch(`${origin}/api/overview`)).status).toBe(200);
    const out = await jar.fetch(`${origin}/auth/sign-out`, { method: 'POST', headers: { origin } });
    expect(out.status).toBe(200);
    const { next } = (await out.json()) as { next: string };
    // The provider's own sign-out, which it advertises, comes next.
    expect(next.startsWith(provider.issuer)).toBe(true);
    expect(new URL(next).searchParams.get('id_token_hint')).toMatch(/^ey/);
    expect((await jar.fetch(`${origin}/api/overview`)).status).toBe(401);
  });

  test('a public client signs in with PKCE alone; the session lasts no longer than sessionMaxAgeSeconds', async () => {
    const open = await startStudio(
      options({ auth: authConfig(STUDIO_CLIENT.id, { sessionMaxAgeSeconds: 120 }) }),
    );
    try {
      const jar = new Jar();
      const start = await jar.fetch(open.url);
      const base = new URL(open.url).origin;
      const query = await signIn(new URL(start.headers.get('location')!), 'alice', `${base}/auth/callback`);
      const back = await jar.fetch(`${base}/auth/callback?${query}`);
      expect(back.status).toBe(303);
      const maxAge = Number(
        /Max-Age=(\d+)/.exec(
          back.headers.getSetCookie().find((line) => line.startsWith(`toolpact-studio-${open.port}=`))!,
        )![1],
      );
      expect(maxAge).toBeGreaterThan(60);
      expect(maxAge).toBeLessThanOrEqual(120);
      const overview = (await (await jar.fetch(`${base}/api/overview`)).json()) as {
        signedIn: { subject: string; groups: string[] };
      };
      expect(overview.signedIn).toMatchObject({ subject: 'alice', groups: ['developers'] });
    } finally {
      await open.close();
    }
  });

  test('at an https address behind a proxy: that Host is answered, and the cookies are Secure and __Host-', async () => {
    const proxied = await startStudio(
      options({ auth: authConfig(STUDIO_CLIENT.id, { url: 'https://studio.example.com' }) }),
    );
    try {
      expect(proxied.url).toBe('https://studio.example.com/');
      const answer = await rawGet(proxied.port, 'studio.example.com');
      expect(answer.statusCode).toBe(302);
      const location = new URL(answer.headers.location as string);
      expect(location.searchParams.get('redirect_uri')).toBe('https://studio.example.com/auth/callback');
      const cookie = String(answer.headers['set-cookie']);
      expect(cookie).toMatch(/^__Host-toolpact-studio-signin=/);
      expect(cookie).toMatch(/; Secure/);
    } finally {
      await proxied.close();
    }
  });

  test('a foreign Host is refused before any session is looked at', async () => {
    const port = Number(new URL(origin).port);
    expect((await rawGet(port, `rebound.example:${port}`)).statusCode).toBe(421);
  });

  test('start refuses an auth without a studio section, a secret not set, or an unreachable issuer', async () => {
    const { studio: _, ...withoutStudio } = authConfig('x');
    await expect(startStudio(options({ auth: withoutStudio }))).rejects.toThrow(/no "studio" section/);
    await expect(
      startStudio(
        options({
          auth: authConfig(STUDIO_CONFIDENTIAL_CLIENT.id, { clientSecretEnv: 'NOT_SET_ANYWHERE' }),
          env: {},
        }),
      ),
    ).rejects.toThrow(/NOT_SET_ANYWHERE.*not set/);
    await expect(
      startStudio(options({ auth: { ...authConfig(STUDIO_CLIENT.id), issuers: ['http://127.0.0.1:1'] } })),
    ).rejects.toThrow(/cannot read the OpenID Connect metadata of http:\/\/127\.0\.0\.1:1/);
  });
});

describe('the studio on a network address', () => {
  const load: StudioOptions['load'] = (registryOptions) => ({
    registry: new Registry(registryOptions).register(deploy),
  });

  test('without auth it refuses to start, and says what to do', async () => {
    await expect(startStudio({ label: 'x', load, host: '0.0.0.0' })).rejects.toThrow(
      /host is "0.0.0.0", reachable from the network, and no auth is configured.*insecureNoAuth/,
    );
  });

  test('with insecureNoAuth every response, refusals included, carries the warning header', async () => {
    const studio = await startStudio({ label: 'x', load, host: '0.0.0.0', insecureNoAuth: true });
    try {
      const port = new URL(studio.url).port;
      const page = await fetch(studio.url);
      expect(page.status).toBe(200);
      const refused = await fetch(`http://127.0.0.1:${port}/not-the-token/`);
      expect(refused.status).toBe(403);
      const api = await fetch(`${studio.url}api/overview`);
      for (const response of [page, refused, api]) {
        expect(response.headers.get('toolpact-warning')).toBe(
          'no-auth: reachable from the network and authenticates no one',
        );
      }
    } finally {
      await studio.close();
    }
  });

  test('on loopback no warning is sent', async () => {
    const studio = await startStudio({ label: 'x', load });
    try {
      expect((await fetch(studio.url)).headers.get('toolpact-warning')).toBeNull();
    } finally {
      await studio.close();
    }
  });
});
