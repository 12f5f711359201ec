import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { AuthConfigError, loadAuthConfig, resolveAuthConfig } from '../../src/mcp/index.js';

const base = { resource: 'https://mcp.example.com/mcp', issuers: ['https://id.example.com'] };

function refusal(value: unknown): AuthConfigError {
  try {
    resolveAuthConfig(value, { source: 'auth.json' });
  } catch (error) {
    if (error instanceof AuthConfigError) return error;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('the auth configuration', () => {
  test('defaults: every asymmetric algorithm, a 30 s leeway, groups and roles claims, scopes_supported from the scopes named', () => {
    const config = resolveAuthConfig({
      ...base,
      scopes: {
        required: ['mcp'],
        tools: { drop_table: ['db:admin'] },
        categories: { write: ['mcp:write'] },
      },
    });
    expect(config.issuers[0]).toMatchObject({ issuer: 'https://id.example.com', jwksCooldownSeconds: 5 });
    expect(config.issuers[0]!.algorithms).toEqual(
      expect.arrayContaining(['RS256', 'PS256', 'ES256', 'EdDSA']),
    );
    expect(config.issuers[0]!.algorithms.some((alg) => alg.startsWith('HS') || alg === 'none')).toBe(false);
    expect(config.leewaySeconds).toBe(30);
    expect(config.claims).toEqual({ groups: ['groups'], roles: ['roles'] });
    expect(config.scopes.supported).toEqual(['db:admin', 'mcp', 'mcp:write']);
  });

  test('apiKeys and introspection are read: the keys path from the given base, the introspection client as written', () => {
    const config = resolveAuthConfig(
      {
        ...base,
        apiKeys: 'keys.json',
        introspection: {
          clientId: 'toolpact',
          clientSecretEnv: 'INTROSPECTION_SECRET',
          cacheMaxAgeSeconds: 30,
        },
      },
      { base: '/srv/toolpact' },
    );
    expect(config.apiKeys).toBe(join('/srv/toolpact', 'keys.json'));
    expect(config.introspection).toMatchObject({
      clientId: 'toolpact',
      clientSecretEnv: 'INTROSPECTION_SECRET',
      cacheMaxAgeSeconds: 30,
    });
    expect(refusal({ ...base, apiKeys: '' }).path).toBe('$.apiKeys');
    expect(refusal({ ...base, introspection: { clientSecretEnv: 'X' } }).path).toBe(
      '$.introspection.clientId',
    );
  });

  test.each([
    [
      { ...base, issuers: [{ issuer: 'https://id.example.com', algorithms: ['none'] }] },
      '$.issuers[0].algorithms',
      /unsigned tokens are never accepted/,
    ],
    [
      { ...base, issuers: [{ issuer: 'https://id.example.com', algorithms: ['HS256'] }] },
      '$.issuers[0].algorithms',
      /symmetric algorithm/,
    ],
    [{ ...base, resouce: 'x' }, '$.resouce', /did you mean "resource"\?/],
    [
      { ...base, issuers: [{ issuer: 'https://id.example.com', jwksUrl: 'x' }] },
      '$.issuers[0].jwksUrl',
      /did you mean "jwksUri"\?/,
    ],
    [{ ...base, resource: 'https://mcp.example.com/mcp#frag' }, '$.resource', /no fragment/],
    [{ ...base, resource: 'http://mcp.example.com/mcp' }, '$.resource', /plain http/],
    [{ ...base, issuers: [] }, '$.issuers', /at least one issuer/],
    [{ ...base, issuers: ['http://id.example.com'] }, '$.issuers[0]', /must use https/],
    [{ ...base, leewaySeconds: 3600 }, '$.leewaySeconds', /from 0 to 300/],
    [{ ...base, claims: { roles: 'realm_access..roles' } }, '$.claims.roles', /dotted path/],
    [{ ...base, scopes: { required: ['two words'] } }, '$.scopes.required', /no spaces/],
  ])('refused with where, what and what to do: %#', (value, path, message) => {
    const error = refusal(value);
    expect(error.path).toBe(path);
    expect(error.message).toMatch(message);
    expect(error.message).toContain('auth.json');
  });

  test('a file: read and checked; bad JSON and a missing file name the file', () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolpact-auth-'));
    try {
      writeFileSync(
        join(folder, 'auth.json'),
        JSON.stringify({ ...base, claims: { roles: 'realm_access.roles' } }),
      );
      const config = loadAuthConfig(join(folder, 'auth.json'));
      expect(config.resource).toBe(base.resource);
      expect(config.claims.roles).toEqual(['realm_access', 'roles']);
      writeFileSync(join(folder, 'broken.json'), '{ "resource": ');
      expect(() => loadAuthConfig(join(folder, 'broken.json'))).toThrow(/broken\.json is not valid JSON/);
      expect(() => loadAuthConfig(join(folder, 'missing.json'))).toThrow(
        /Cannot read the auth file .*missing\.json \(ENOENT\)/,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
