import type { ServerResponse } from 'node:http';
import { describe, expect, test } from 'vitest';
import { principalUpstreams, upstreamPrincipalId } from '../../src/gateway/principal-upstreams.js';
import { teamSignIn } from '../../src/gateway/team-signin.js';
import { Registry } from '../../src/index.js';
import { serveHttp } from '../../src/mcp/index.js';
import { memoryTokenStore } from '../../src/mcp/oauth/token-store.js';

// The options of the per-person pool and the team sign-in link, and the link on a server that
// authenticates no one. The flows themselves are in team-signin.test.ts, against a real provider.

const store = memoryTokenStore();
const server = { url: 'http://127.0.0.1:9/mcp', auth: { store, server: 'linear' } };

describe('the team sign-in options', () => {
  test('a server named like the callback cannot have a link', () => {
    expect(() => teamSignIn({ path: '/mcp', servers: { callback: server } })).toThrow(
      /<path>\/signin\/callback is where sign-ins come back/,
    );
  });

  test('the pool takes whole positive numbers only', () => {
    for (const idleMs of [0, -1, 1.5, Number.NaN]) {
      expect(() => principalUpstreams({ ...server, idleMs })).toThrow(/idleMs must be a whole number/);
    }
    expect(() => principalUpstreams({ ...server, maxConnections: 0 })).toThrow(/maxConnections/);
  });

  test('a principal is kept by subject and issuer, so the same subject of two issuers is two people', () => {
    const person = { groups: [], roles: [], scopes: [], clientId: undefined };
    const ids = [
      upstreamPrincipalId({ ...person, subject: 'alice', issuer: 'https://a.example' }),
      upstreamPrincipalId({ ...person, subject: 'alice', issuer: 'https://b.example' }),
      upstreamPrincipalId({ ...person, subject: 'alice', issuer: 'api-key' }),
    ];
    expect(new Set(ids).size).toBe(3);
    expect(ids).not.toContain('local');
  });

  test('without authentication the link is not served, and nothing is started', async () => {
    const greedy = {
      owns: () => true,
      handle: async (_request: unknown, response: ServerResponse) => {
        response.writeHead(418).end();
      },
    };
    const running = await serveHttp(new Registry(), {
      routes: [teamSignIn({ path: '/mcp', servers: { linear: server } }), greedy],
    });
    try {
      const response = await fetch(`${running.url}/signin/linear`);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { type: string } }).error.type).toBe('needs_auth');
      expect(await store.read('linear', 'local')).toBeUndefined();
      // The endpoint's own path stays MCP's, whatever a route claims; other paths are the routes'.
      expect((await fetch(running.url)).status).not.toBe(418);
      expect((await fetch(`${running.url}/elsewhere`)).status).toBe(418);
    } finally {
      await running.close();
    }
  });
});
