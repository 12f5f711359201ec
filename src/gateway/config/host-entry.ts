// The gateway's config is a host's own MCP file. The dialects follow each host's documentation:
// - Claude Desktop: https://modelcontextprotocol.io/docs/develop/connect-local-servers
// - Claude Code:    https://code.claude.com/docs/en/mcp
// - Cursor:         https://cursor.com/docs/mcp
// - VS Code:        https://code.visualstudio.com/docs/copilot/reference/mcp-configuration
//                   https://code.visualstudio.com/docs/reference/variables-reference

import { readFileSync } from 'node:fs';
import {
  checkKeys,
  child,
  describe,
  type ErrorScope,
  GatewayConfigError,
  invalid,
  isRecord,
} from './error.js';
import { hostOAuth } from './oauth-entry.js';
import type { GatewaySandbox, HostDialect, RemoteTarget, StdioTarget } from './types.js';
import {
  envReference,
  expandHome,
  expandVariables,
  parseDotenv,
  resolvePath,
  type VariableScope,
} from './variables.js';

/** Each host's name, as messages say it. */
export const HOST_NAMES: { readonly [D in HostDialect]: string } = {
  'claude-desktop': 'Claude Desktop',
  'claude-code': 'Claude Code',
  cursor: 'Cursor',
  vscode: 'VS Code',
};

/** The keys each host documents for an entry, by transport. */
const ENTRY_KEYS: { readonly [D in HostDialect]: { readonly stdio: string[]; readonly remote: string[] } } = {
  'claude-desktop': { stdio: ['command', 'args', 'env'], remote: [] },
  'claude-code': {
    stdio: ['type', 'command', 'args', 'env', 'cwd'],
    remote: ['type', 'url', 'headers', 'headersHelper', 'oauth'],
  },
  cursor: {
    stdio: ['type', 'command', 'args', 'env', 'envFile'],
    remote: ['type', 'url', 'headers', 'auth'],
  },
  vscode: {
    stdio: ['type', 'command', 'args', 'env', 'envFile', 'cwd', 'dev', 'sandboxEnabled', 'sandbox'],
    remote: ['type', 'url', 'headers', 'oauth', 'dev'],
  },
};

/** The `type` values each host takes. Cursor tells SSE from streamable HTTP itself and also takes its own name. */
const ENTRY_TYPES: { readonly [D in HostDialect]: { readonly [type: string]: 'stdio' | 'http' | 'sse' } } = {
  'claude-desktop': {},
  'claude-code': { stdio: 'stdio', http: 'http', sse: 'sse' },
  cursor: { stdio: 'stdio', http: 'http', sse: 'sse', 'streamable-http': 'http' },
  vscode: { stdio: 'stdio', http: 'http', sse: 'sse' },
};

const VSCODE_SANDBOX_KEYS = {
  filesystem: ['allowWrite', 'denyRead', 'denyWrite'],
  network: ['allowedDomains', 'deniedDomains'],
};

/** A host entry read: what to start or reach, or why it is left out. */
export type ParsedEntry = { target: StdioTarget | RemoteTarget; sandbox?: GatewaySandbox } | { skip: string };

/** One host entry: its transport, keys, types and variables. */
export function parseEntry(raw: unknown, path: string, scope: VariableScope, folder: string): ParsedEntry {
  const host = HOST_NAMES[scope.dialect];
  if (!isRecord(raw)) {
    return invalid(
      scope,
      path,
      `must be an object such as { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }, received ${describe(raw)}.`,
    );
  }
  const kind = entryKind(raw, path, scope);
  const keys = ENTRY_KEYS[scope.dialect];
  checkKeys(scope, path, raw, kind === 'stdio' ? keys.stdio : keys.remote, `A ${host} ${kind} entry`);
  return kind === 'stdio' ? stdioEntry(raw, path, scope, folder) : remoteEntry(raw, kind, path, scope);
}

function entryKind(
  raw: Record<string, unknown>,
  path: string,
  scope: VariableScope,
): 'stdio' | 'http' | 'sse' {
  const types = ENTRY_TYPES[scope.dialect];
  if (scope.dialect === 'claude-desktop') {
    if (raw.url !== undefined || (raw.type !== undefined && raw.type !== 'stdio')) {
      invalid(
        scope,
        path,
        'is a remote (url) entry, but Claude Desktop takes stdio entries only: "command", "args" and "env". Add remote servers to Claude Desktop as connectors, or read this file as Claude Code\'s with "toolpact": { "host": "claude-code" }.',
      );
    }
    return 'stdio';
  }
  if (raw.type !== undefined) {
    const kind = typeof raw.type === 'string' ? types[raw.type] : undefined;
    if (kind === undefined) {
      const allowed = Object.keys(types)
        .map((type) => `"${type}"`)
        .join(', ');
      invalid(scope, `${path}.type`, `must be one of ${allowed}, received ${describe(raw.type)}.`);
    }
    return kind;
  }
  if (raw.command !== undefined && raw.url !== undefined) {
    invalid(
      scope,
      path,
      'has both "command" and "url". Give "command" for a server to start, or "url" for a running one.',
    );
  }
  if (raw.command !== undefined) return 'stdio';
  if (raw.url !== undefined) return 'http';
  // Neither: a misspelt "command" or "url" is named as the typo it is, not as a missing key.
  const known = [...new Set([...ENTRY_KEYS[scope.dialect].stdio, ...ENTRY_KEYS[scope.dialect].remote])];
  checkKeys(scope, path, raw, known, `A ${HOST_NAMES[scope.dialect]} entry`);
  return invalid(
    scope,
    path,
    'needs a "command" (a server to start, with "args" and "env") or a "url" (a running server). Received neither.',
  );
}

function stdioEntry(
  raw: Record<string, unknown>,
  path: string,
  scope: VariableScope,
  folder: string,
): ParsedEntry {
  if (typeof raw.command !== 'string' || raw.command.trim() === '') {
    invalid(
      scope,
      `${path}.command`,
      `must be the command that starts the server, such as "npx" or "node", received ${describe(raw.command)}.`,
    );
  }
  const command = expandHome(expandVariables(raw.command, `${path}.command`, scope), scope.home);
  const args = raw.args === undefined ? [] : stringArray(raw.args, `${path}.args`, scope);
  const env =
    raw.env === undefined ? {} : stringMap(raw.env, `${path}.env`, scope, scope.dialect === 'vscode');
  const target: { -readonly [K in keyof StdioTarget]: StdioTarget[K] } = {
    kind: 'stdio',
    command,
    args: args.map((arg, index) => expandVariables(arg, child(`${path}.args`, index), scope)),
    env: {},
  };
  const expandedEnv: Record<string, string> = {};
  for (const [key, text] of Object.entries(env)) {
    expandedEnv[key] = expandVariables(text, child(`${path}.env`, key), scope);
  }
  if (raw.envFile !== undefined) {
    const fromFile = readEnvFile(raw.envFile, `${path}.envFile`, scope, folder);
    target.env = { ...fromFile, ...expandedEnv };
  } else {
    target.env = expandedEnv;
  }
  if (raw.cwd !== undefined) {
    if (typeof raw.cwd !== 'string' || raw.cwd.trim() === '') {
      invalid(
        scope,
        `${path}.cwd`,
        `must be the folder to start the server in, received ${describe(raw.cwd)}.`,
      );
    }
    target.cwd = resolvePath(raw.cwd, `${path}.cwd`, scope, folder);
  }
  if (raw.dev !== undefined && !isRecord(raw.dev)) {
    invalid(
      scope,
      `${path}.dev`,
      `must be an object such as { "watch": "src/**/*.ts" }, received ${describe(raw.dev)}.`,
    );
  }
  const sandbox = vscodeSandbox(raw, path, scope, folder);
  return sandbox === undefined ? { target } : { target, sandbox };
}

/**
 * VS Code's own sandbox (`sandboxEnabled`, `sandbox.filesystem`, `sandbox.network`), carried over so a
 * server the user asked to confine is never started unconfined. bubblewrap grants by listing, so the
 * sandbox is stricter than VS Code's: reads beyond what the server needs to start are limited to the
 * writable paths, and the deny lists are implied. Network domains cannot be filtered: any allowed domain
 * turns the network on. A `toolpact.servers.<name>.sandbox` takes precedence.
 */
function vscodeSandbox(
  raw: Record<string, unknown>,
  path: string,
  scope: VariableScope,
  folder: string,
): GatewaySandbox | undefined {
  if (raw.sandboxEnabled !== undefined && typeof raw.sandboxEnabled !== 'boolean') {
    invalid(
      scope,
      `${path}.sandboxEnabled`,
      `must be true or false, received ${describe(raw.sandboxEnabled)}.`,
    );
  }
  const rules = raw.sandbox ?? {};
  const at = `${path}.sandbox`;
  if (!isRecord(rules)) {
    return invalid(
      scope,
      at,
      `must be an object such as { "filesystem": { "allowWrite": ["\${workspaceFolder}"] }, "network": { "allowedDomains": [] } }, received ${describe(rules)}.`,
    );
  }
  checkKeys(scope, at, rules, Object.keys(VSCODE_SANDBOX_KEYS), 'A VS Code sandbox');
  const lists: Record<string, string[]> = {};
  for (const [group, keys] of Object.entries(VSCODE_SANDBOX_KEYS)) {
    const value = rules[group];
    if (value === undefined) continue;
    if (!isRecord(value)) invalid(scope, `${at}.${group}`, `must be an object, received ${describe(value)}.`);
    checkKeys(scope, `${at}.${group}`, value, keys, `A VS Code sandbox's "${group}"`);
    for (const key of keys) {
      if (value[key] !== undefined) lists[key] = stringArray(value[key], `${at}.${group}.${key}`, scope);
    }
  }
  if (raw.sandboxEnabled !== true) return undefined;
  const write = (lists.allowWrite ?? []).map((entry, index) =>
    resolvePath(entry, child(`${at}.filesystem.allowWrite`, index), scope, folder),
  );
  return { read: [], write, network: (lists.allowedDomains ?? []).length > 0 };
}

function remoteEntry(
  raw: Record<string, unknown>,
  kind: 'http' | 'sse',
  path: string,
  scope: VariableScope,
): ParsedEntry {
  if (typeof raw.url !== 'string' || raw.url.trim() === '') {
    invalid(
      scope,
      `${path}.url`,
      `must be the server's URL, such as "https://example.com/mcp", received ${describe(raw.url)}.`,
    );
  }
  const url = expandVariables(raw.url, `${path}.url`, scope);
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    invalid(scope, `${path}.url`, `must be an http:// or https:// URL, received ${describe(url)}.`);
  }
  const headers: Record<string, string> = {};
  if (raw.headers !== undefined) {
    for (const [name, text] of Object.entries(stringMap(raw.headers, `${path}.headers`, scope))) {
      headers[name] = expandVariables(text, child(`${path}.headers`, name), scope);
    }
  }
  if (raw.dev !== undefined && !isRecord(raw.dev)) {
    invalid(scope, `${path}.dev`, `must be an object, received ${describe(raw.dev)}.`);
  }
  if (raw.headersHelper !== undefined) {
    if (typeof raw.headersHelper !== 'string') {
      invalid(scope, `${path}.headersHelper`, `must be a command, received ${describe(raw.headersHelper)}.`);
    }
    return {
      skip: `it takes its headers from a "headersHelper" command, which the gateway does not run. Put the header in "headers", with its secret from an environment variable (e.g. "Bearer ${envReference(scope.dialect, 'TOKEN')}").`,
    };
  }
  const oauth = hostOAuth(raw, path, scope);
  if ('skip' in oauth) return oauth;
  // A server given a token in its headers signs in with it; any other may ask for a sign-in.
  const hasToken = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
  return { target: hasToken ? { kind, url, headers } : { kind, url, headers, oauth } };
}

function readEnvFile(
  raw: unknown,
  path: string,
  scope: VariableScope,
  folder: string,
): Record<string, string> {
  if (typeof raw !== 'string' || raw.trim() === '') {
    invalid(scope, path, `must be the path of a dotenv file (KEY=VALUE lines), received ${describe(raw)}.`);
  }
  const file = resolvePath(raw, path, scope, folder);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new GatewayConfigError(
      'unreadable_file',
      `${scope.file}: ${path} names ${file}, which ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(error)})`}.`,
      { file: scope.file, path, cause: error },
    );
  }
  try {
    return parseDotenv(text);
  } catch (error) {
    return invalid(
      scope,
      path,
      `names ${file}, whose ${(error as Error).message}. Each line is KEY=VALUE or a # comment.`,
    );
  }
}

function stringArray(value: unknown, path: string, scope: ErrorScope): string[] {
  if (!Array.isArray(value))
    invalid(scope, path, `must be an array of strings, received ${describe(value)}.`);
  value.forEach((entry, index) => {
    if (typeof entry !== 'string')
      invalid(scope, child(path, index), `must be a string, received ${describe(entry)}.`);
  });
  return [...(value as string[])];
}

/** A map of strings; VS Code also takes numbers in `env`, which are written out as text. */
function stringMap(value: unknown, path: string, scope: ErrorScope, numbers = false): Record<string, string> {
  if (!isRecord(value)) {
    return invalid(
      scope,
      path,
      `must map names to strings, such as { "API_KEY": "…" }, received ${describe(value)}.`,
    );
  }
  const result: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry === 'string') result[key] = entry;
    else if (typeof entry === 'number' && numbers) result[key] = String(entry);
    else invalid(scope, child(path, key), `must be a string, received ${describe(entry)}.`);
  }
  return result;
}
