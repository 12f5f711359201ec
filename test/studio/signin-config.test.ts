// The auth file's "studio" section: the studio as an OpenID Connect client, checked with its JSON path.
import { describe, expect, test } from 'vitest';
import { AuthConfigError, resolveAuthConfig } from '../../src/auth/auth-config.js';

const base = {
  resource: 'https://tools.example.com/mcp',
  issuers: ['https://id.example.com', 'https://login.example.org'],
};

function refusal(studio: unknown): AuthConfigError {
  try {
    resolveAuthConfig({ ...base, studio }, { source: 'auth.json' });
  } catch (error) {
    expect(error).toBeInstanceOf(AuthConfigError);
    return error as AuthConfigError;
  }
  throw new Error('the section was accepted');
}

describe('the auth file\'s "studio" section', () => {
  test('defaults: the first issuer, a public client, "openid", no address, 8 hours', () => {
    expect(resolveAuthConfig({ ...base, studio: { clientId: 'studio' } }).studio).toEqual({
      issuer: 'https://id.example.com',
      clientId: 'studio',
      clientSecretEnv: undefined,
      scopes: ['openid'],
      url: undefined,
      sessionMaxAgeSeconds: 28_800,
    });
    expect(resolveAuthConfig(base).studio).toBeUndefined();
  });

  test('everything given', () => {
    const studio = resolveAuthConfig({
      ...base,
      studio: {
        issuer: 'https://login.example.org',
        clientId: 'studio',
        clientSecretEnv: 'STUDIO_SECRET',
        scopes: ['openid', 'profile', 'groups'],
        url: 'https://studio.example.com/',
        sessionMaxAgeSeconds: 3600,
      },
    }).studio;
    expect(studio).toMatchObject({
      issuer: 'https://login.example.org',
      clientSecretEnv: 'STUDIO_SECRET',
      scopes: ['openid', 'profile', 'groups'],
      url: 'https://studio.example.com',
      sessionMaxAgeSeconds: 3600,
    });
  });

  test.each([
    [
      { clientId: 'studio', issuer: 'https://other.example.com' },
      '$.studio.issuer',
      'one of the trusted issuers',
    ],
    [{}, '$.studio.clientId', "redirect URI is the studio's address followed by /auth/callback"],
    [
      { clientId: 'studio', clientSecretEnv: 'not a name' },
      '$.studio.clientSecretEnv',
      'environment variable',
    ],
    [{ clientId: 'studio', scopes: ['profile'] }, '$.studio.scopes', 'add it, e.g. ["openid", "groups"]'],
    [{ clientId: 'studio', scopes: 'openid' }, '$.studio.scopes', 'list of scope names'],
    [{ clientId: 'studio', url: 'https://studio.example.com/tools' }, '$.studio.url', 'an origin only'],
    [{ clientId: 'studio', url: 'ftp://studio.example.com' }, '$.studio.url', 'as browsers reach it'],
    [{ clientId: 'studio', url: 'https://me:pw@studio.example.com' }, '$.studio.url', 'user or password'],
    [{ clientId: 'studio', sessionMaxAgeSeconds: 5 }, '$.studio.sessionMaxAgeSeconds', 'from 60 to 604800'],
    [{ clientID: 'studio' }, '$.studio.clientID', 'did you mean "clientId"'],
    ['studio', '$.studio', 'give an object'],
  ])('%j is refused at %s', (studio, path, words) => {
    const error = refusal(studio);
    expect(error.path).toBe(path);
    expect(error.message).toContain(`auth.json: ${path}`);
    expect(error.message).toContain(words);
  });

  test('the keys of the other sections are known beside it', () => {
    const config = resolveAuthConfig(
      {
        ...base,
        apiKeys: 'keys.json',
        introspection: { clientId: 'rs', clientSecretEnv: 'RS_SECRET' },
        studio: { clientId: 's' },
      },
      { base: '/srv/toolpact' },
    );
    expect(config.apiKeys).toBe('/srv/toolpact/keys.json');
    expect(config.introspection).toMatchObject({ clientId: 'rs' });
  });
});
