// biome-ignore-all lint/suspicious/noTemplateCurlyInString: host configs hold their variables as literal ${…} text
// A remote entry with no Authorization header may sign in: the hosts' own OAuth fields (Claude Code's
// and VS Code's `oauth`, Cursor's `auth`) under toolpact's `servers.<name>.oauth`, and the token file,
// which no server may reach.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  GatewayConfigError,
  type GatewayConfigOptions,
  gatewayFiles,
  readGatewayConfig,
} from '../../src/gateway/config/index.js';

let dir: string;
let home: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolpact-gateway-sign-in-config-')));
  home = join(dir, 'home');
  mkdirSync(home);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: unknown): string {
  const file = join(dir, name);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(content, null, 2));
  return file;
}

const env = () => ({ XDG_STATE_HOME: join(dir, 'state') });

function read(file: string, options: GatewayConfigOptions = {}) {
  return readGatewayConfig(file, { env: env(), home, ...options });
}

function refusal(run: () => unknown): GatewayConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayConfigError) return error;
    throw error;
  }
  throw new Error('expected a GatewayConfigError');
}

const URL = 'https://mcp.example.com/mcp';

describe("each host's own OAuth fields", () => {
  test("Claude Code's oauth: clientId, callbackPort and scopes", () => {
    const file = write('.mcp.json', {
      mcpServers: {
        linear: {
          type: 'http',
          url: URL,
          oauth: { clientId: 'app-1', callbackPort: 8080, scopes: 'read write' },
        },
        plain: { type: 'http', url: URL },
      },
    });
    const config = read(file);
    expect(config.servers.map((server) => server.target)).toEqual([
      {
        kind: 'http',
        url: URL,
        headers: {},
        oauth: { clientId: 'app-1', callbackPort: 8080, scope: 'read write' },
      },
      { kind: 'http', url: URL, headers: {}, oauth: {} },
    ]);
    expect(config.tokens).toBe(join(dir, 'state', 'toolpact', 'mcp-tokens.json'));
  });

  test("Claude Code's authServerMetadataUrl leaves the entry out, saying why", () => {
    const file = write('.mcp.json', {
      mcpServers: {
        linear: {
          type: 'http',
          url: URL,
          oauth: { authServerMetadataUrl: 'https://id.example.com/.well-known/x' },
        },
      },
    });
    const config = read(file);
    expect(config.servers).toEqual([]);
    expect(config.skipped[0]?.reason).toContain('authServerMetadataUrl');
  });

  test("VS Code's oauth takes clientId; a secret there is an unknown key, named with what is allowed", () => {
    const ok = write('app/.vscode/mcp.json', {
      servers: { gh: { type: 'http', url: URL, oauth: { clientId: 'vs-1' } } },
    });
    expect(read(ok).servers[0]?.target).toEqual({
      kind: 'http',
      url: URL,
      headers: {},
      oauth: { clientId: 'vs-1' },
    });
    const bad = write('other/.vscode/mcp.json', {
      servers: { gh: { type: 'http', url: URL, oauth: { clientId: 'vs-1', clientSecret: 's' } } },
    });
    const error = refusal(() => read(bad));
    expect(error.code).toBe('invalid_config');
    expect(error.path).toBe('$.servers.gh.oauth');
    expect(error.message).toContain('unknown key "clientSecret"');
    expect(error.message).toContain('clientId');
  });

  test("Cursor's auth: CLIENT_ID, CLIENT_SECRET from ${env:…} and scopes as a list", () => {
    const file = write('shop/.cursor/mcp.json', {
      mcpServers: {
        notion: {
          url: URL,
          auth: { CLIENT_ID: 'cur-1', CLIENT_SECRET: '${env:NOTION_SECRET}', scopes: ['read', 'write'] },
        },
      },
    });
    const config = read(file, { env: { ...env(), NOTION_SECRET: 'shh' } });
    expect(config.servers[0]?.target).toEqual({
      kind: 'http',
      url: URL,
      headers: {},
      oauth: { clientId: 'cur-1', clientSecret: 'shh', scope: 'read write' },
    });
    const bad = write('b/.cursor/mcp.json', {
      mcpServers: { notion: { url: URL, auth: { scopes: 'read' } } },
    });
    expect(refusal(() => read(bad)).path).toBe('$.mcpServers.notion.auth.scopes');
    const shape = write('c/.cursor/mcp.json', { mcpServers: { notion: { url: URL, auth: 'token' } } });
    expect(refusal(() => read(shape)).message).toContain('"CLIENT_ID"');
  });

  test('a callbackPort that is no port is refused at its path', () => {
    const file = write('.mcp.json', {
      mcpServers: { s: { type: 'http', url: URL, oauth: { callbackPort: 70_000 } } },
    });
    const error = refusal(() => read(file));
    expect(error.path).toBe('$.mcpServers.s.oauth.callbackPort');
    expect(error.message).toContain('received number 70000');
  });
});

describe("toolpact's oauth setting", () => {
  const entry = { type: 'http', url: URL, oauth: { clientId: 'host-id', callbackPort: 9000 } };

  test('goes over the host fields; the secret comes from the variable clientSecretEnv names', () => {
    const file = write('.mcp.json', {
      mcpServers: { s: entry },
      toolpact: {
        servers: {
          s: {
            oauth: {
              clientId: 'mine',
              clientSecretEnv: 'S_SECRET',
              clientMetadataUrl: 'https://example.com/client.json',
              issuer: 'https://id.example.com',
              scope: 'tools:read',
            },
          },
        },
      },
    });
    const config = read(file, { env: { ...env(), S_SECRET: 'from-env' } });
    expect(config.servers[0]?.target).toEqual({
      kind: 'http',
      url: URL,
      headers: {},
      oauth: {
        clientId: 'mine',
        clientSecret: 'from-env',
        clientMetadataUrl: 'https://example.com/client.json',
        issuer: 'https://id.example.com',
        scope: 'tools:read',
        callbackPort: 9000,
      },
    });
  });

  test.each([
    [
      { clientSecretEnv: 'S_SECRET' },
      'unset_variable',
      '$.toolpact.servers.s.oauth.clientSecretEnv',
      'is not set',
    ],
    [
      { clientSecretEnv: 'sk-live-abc123' },
      'invalid_config',
      '$.toolpact.servers.s.oauth.clientSecretEnv',
      'Never write the secret',
    ],
    [
      { clientMetadataUrl: 'http://example.com/client.json' },
      'invalid_config',
      '$.toolpact.servers.s.oauth.clientMetadataUrl',
      'https URL',
    ],
    [
      { clientMetadataUrl: 'https://example.com/' },
      'invalid_config',
      '$.toolpact.servers.s.oauth.clientMetadataUrl',
      'with a path',
    ],
    [{ clientSecret: 'x' }, 'invalid_config', '$.toolpact.servers.s.oauth', 'unknown key "clientSecret"'],
    [
      { clientId: 'mine', issuer: 'id.example.com' },
      'invalid_config',
      '$.toolpact.servers.s.oauth.issuer',
      'issuer URL',
    ],
    [
      { issuer: 'https://id.example.com' },
      'invalid_config',
      '$.toolpact.servers.s.oauth',
      'without a client id',
    ],
  ])('%j is refused (%s at %s)', (oauth, code, path, words) => {
    const file = write('.mcp.json', {
      mcpServers: { s: { type: 'http', url: URL } },
      toolpact: { servers: { s: { oauth } } },
    });
    const error = refusal(() => read(file));
    expect([error.code, error.path]).toEqual([code, path]);
    expect(error.message).toContain(words);
  });

  test('a secret without a client id is refused, from the host or from toolpact', () => {
    const cursor = write('x/.cursor/mcp.json', {
      mcpServers: { s: { url: URL, auth: { CLIENT_SECRET: 'x' } } },
    });
    expect(refusal(() => read(cursor)).message).toContain('client secret without a client id');
    const own = write('.mcp.json', {
      mcpServers: { s: { type: 'http', url: URL } },
      toolpact: { servers: { s: { oauth: { clientSecretEnv: 'S' } } } },
    });
    expect(refusal(() => read(own, { env: { ...env(), S: 'x' } })).message).toContain(
      'client secret without a client id',
    );
  });

  test('is refused on a stdio server, and on one that sends an Authorization header', () => {
    const stdio = write('a/.mcp.json', {
      mcpServers: { s: { command: 'node', args: ['server.js'] } },
      toolpact: { servers: { s: { oauth: { clientId: 'x' } } } },
    });
    expect(refusal(() => read(stdio)).message).toContain('applies to remote (http) servers only');
    const header = write('b/.mcp.json', {
      mcpServers: { s: { type: 'http', url: URL, headers: { authorization: 'Bearer ${T}' } } },
      toolpact: { servers: { s: { oauth: { clientId: 'x' } } } },
    });
    const error = refusal(() => read(header, { env: { ...env(), T: 't' } }));
    expect(error.path).toBe('$.toolpact.servers.s.oauth');
    expect(error.message).toContain('sends an Authorization header');
  });
});

describe('the token file', () => {
  test('toolpact.tokens is relative to the config; it and its key are gateway files; no server that signs in, no token file', () => {
    const file = write('cfg/.mcp.json', {
      mcpServers: { s: { type: 'http', url: URL } },
      toolpact: { tokens: 'private/tokens.json' },
    });
    const config = read(file);
    expect(config.tokens).toBe(join(dir, 'cfg', 'private', 'tokens.json'));
    expect(gatewayFiles(config).filter((entry) => entry.role.startsWith('token'))).toEqual([
      { role: 'tokens', path: join(dir, 'cfg', 'private', 'tokens.json') },
      { role: 'token key', path: join(dir, 'cfg', 'private', 'tokens.json.key') },
    ]);
    const none = write('other/.mcp.json', { mcpServers: { s: { command: 'node' } } });
    expect(read(none).tokens).toBeUndefined();
  });

  test.each([
    ['a sandbox grant that holds it', { read: ['~/private'] }, 'private/tokens.json', 'sandbox read'],
    [
      'a sandbox grant of its key file alone',
      { read: ['~/private/tokens.json.key'] },
      'private/tokens.json',
      'sandbox read',
    ],
    ['a grant reached through ..', { write: ['~/work/../private'] }, 'private/tokens.json', 'sandbox write'],
  ])('is refused inside %s', (_what, sandbox, tokens, via) => {
    mkdirSync(join(home, 'private'), { recursive: true });
    mkdirSync(join(home, 'work'), { recursive: true });
    const file = write('cfg/.mcp.json', {
      mcpServers: { remote: { type: 'http', url: URL }, notes: { command: 'node', args: ['notes.js'] } },
      toolpact: { tokens: join(home, tokens), servers: { notes: { sandbox } } },
    });
    const error = refusal(() => read(file));
    expect(error.code).toBe('exposed_file');
    expect(error.message).toContain(via.split(' ')[1]!);
    expect(error.message).toContain('notes');
  });

  test("is refused inside a folder a server's arguments name (the filesystem server), even through a symbolic link", () => {
    mkdirSync(join(home, 'shared'), { recursive: true });
    symlinkSync(join(home, 'shared'), join(home, 'link'));
    const file = write('cfg/.mcp.json', {
      mcpServers: {
        remote: { type: 'http', url: URL },
        files: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', join(home, 'shared')],
        },
      },
      toolpact: { tokens: join(home, 'link', 'tokens.json') },
    });
    const error = refusal(() => read(file));
    expect(error.code).toBe('exposed_file');
    expect(error.path).toBe('$.toolpact.tokens');
    expect(error.message).toContain('the server "files" can reach');
    expect(error.message).toContain('read every sign-in');
  });

  test('the default token file is refused too when a server exposes the state folder, and the message says to set toolpact.tokens', () => {
    mkdirSync(join(dir, 'state'), { recursive: true });
    const file = write('cfg/.mcp.json', {
      mcpServers: {
        remote: { type: 'http', url: URL },
        files: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', join(dir, 'state')],
        },
      },
    });
    const error = refusal(() => read(file));
    expect(error.code).toBe('exposed_file');
    expect(error.message).toContain('"toolpact.tokens"');
  });
});
