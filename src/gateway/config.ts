// The gateway's config is a host's own MCP file. The dialects follow each host's documentation:
// - Claude Desktop: https://modelcontextprotocol.io/docs/develop/connect-local-servers
// - Claude Code:    https://code.claude.com/docs/en/mcp
// - Cursor:         https://cursor.com/docs/mcp
// - VS Code:        https://code.visualstudio.com/docs/copilot/reference/mcp-configuration
//                   https://code.visualstudio.com/docs/reference/variables-reference

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { parsePolicy } from '../policy/define-policy.js';
import { loadPolicyFile } from '../policy/load-policy.js';
import type { Policy } from '../policy/policy.js';
import { PolicyError } from '../policy/policy-error.js';
import { deepFreeze } from '../util/deep-freeze.js';
import {
  checkKeys,
  child,
  describe,
  type ErrorScope,
  GatewayConfigError,
  invalid,
  isRecord,
} from './config-error.js';
import { startsThisGateway } from './config-self.js';
import { parseConfigText, syntaxError } from './config-text.js';
import { declaredHost, parseToolpactSection, type ServerSettings } from './config-toolpact.js';
import {
  envReference,
  expandHome,
  expandVariables,
  parseDotenv,
  resolvePath,
  type VariableScope,
} from './config-variables.js';

export { GatewayConfigError, type GatewayConfigErrorCode } from './config-error.js';

import type {
  GatewayConfig,
  GatewaySandbox,
  GatewayServer,
  HostDialect,
  RemoteTarget,
  StdioTarget,
} from './config-types.js';

export type {
  GatewayConfig,
  GatewaySandbox,
  GatewayServer,
  HostDialect,
  RemoteTarget,
  StdioTarget,
  ToolOverride,
} from './config-types.js';

/** Where the values of variables come from. */
export interface GatewayConfigOptions {
  /** The environment variables expand from; default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** `~` and `${userHome}`; default the user's home folder. */
  readonly home?: string;
  /**
   * `${workspaceFolder}`; default the folder holding `.vscode` or `.cursor` when the config is inside one,
   * else the config's own folder.
   */
  readonly workspaceFolder?: string;
}

const HOST_NAMES: { readonly [D in HostDialect]: string } = {
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

/**
 * Reads a host's MCP config file as the gateway's config: Claude Desktop's `claude_desktop_config.json`,
 * Claude Code's `.mcp.json` or `~/.claude.json`, Cursor's `.cursor/mcp.json`, VS Code's `.vscode/mcp.json`
 * (JSONC), with toolpact's own settings in an optional top-level `"toolpact"` key. A missing file throws
 * `unreadable_file`; JSON that does not parse throws `invalid_json` with the line and column; the rest is
 * {@link parseGatewayConfig}.
 *
 * @example
 * const config = readGatewayConfig('.cursor/mcp.json', { env: process.env });
 * for (const server of config.servers) console.log(server.name, server.target.kind);
 * for (const { name, reason } of config.skipped) console.error(`${name}: ${reason}`);
 */
export function readGatewayConfig(file: string, options: GatewayConfigOptions = {}): GatewayConfig {
  return parseGatewayConfig(readHostText(file), { ...options, file });
}

/**
 * A host config's JSON as written, variables unexpanded: what {@link readGatewayConfig} parses before
 * checking it, for tools that copy entries from one file to another. JSONC (comments, trailing commas)
 * is taken only where VS Code's dialect applies. Throws `unreadable_file` or `invalid_json`.
 *
 * @example
 * const raw = readHostText('.vscode/mcp.json') as { servers?: object };
 */
export function readHostText(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message =
      code === 'ENOENT'
        ? `The gateway config ${file} does not exist. Give the path of a host's MCP config, such as .mcp.json, .cursor/mcp.json, .vscode/mcp.json or claude_desktop_config.json.`
        : code === 'EISDIR'
          ? `The gateway config ${file} is a folder. Give the path of the MCP config file inside it.`
          : `The gateway config ${file} cannot be read (${code ?? String(error)}).`;
    throw new GatewayConfigError('unreadable_file', message, { file, cause: error });
  }
  const absolute = resolve(file);
  const parsed = parseConfigText(text, file, basename(dirname(absolute)) === '.vscode');
  if (parsed.jsonc) {
    // Only VS Code reads comments and trailing commas; another host would refuse this file.
    const value = parsed.value;
    const dialect = isRecord(value) ? detectDialect(value, absolute, { file }) : undefined;
    if (dialect !== 'vscode') {
      throw syntaxError(
        text.replace(/^\uFEFF/, ' '),
        file,
        '',
        ` Comments and trailing commas are allowed in VS Code's mcp.json only; ${dialect ? HOST_NAMES[dialect] : 'this host'} reads strict JSON.`,
      );
    }
  }
  return parsed.value;
}

/**
 * Checks a parsed host config and returns the gateway's config, frozen. The dialect is `toolpact.host`
 * when given; else VS Code when there is a top-level `servers`; else decided by the file's name
 * (`claude_desktop_config.json`, `.mcp.json` or `.claude.json`, a file in `.cursor` or `.vscode`); else
 * Claude Code, whose `mcpServers` shape the other hosts share and whose `${VAR}` is the most used.
 *
 * Every key is checked against the host's documented keys and toolpact's section; variables expand in
 * `command`, `args`, `env`, `cwd`, `envFile`, `url` and `headers` by the host's rules; an entry that
 * would start this same gateway, or that needs what an unattended gateway cannot do (a `headersHelper`
 * command, a browser sign-in), goes to `skipped` with the reason. Errors are {@link GatewayConfigError}s.
 *
 * @example
 * const config = parseGatewayConfig(
 *   { mcpServers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } } },
 *   { file: '/home/me/project/.mcp.json' },
 * );
 * config.servers[0]?.target; // { kind: 'stdio', command: 'npx', args: [...], env: {} }
 */
export function parseGatewayConfig(
  value: unknown,
  options: GatewayConfigOptions & { readonly file: string },
): GatewayConfig {
  const scope: ErrorScope = { file: options.file };
  const file = resolve(options.file);
  const folder = dirname(file);
  if (!isRecord(value)) {
    invalid(
      scope,
      '$',
      `must be a JSON object such as { "mcpServers": { ... } }, received ${describe(value)}.`,
    );
  }
  const dialect = detectDialect(value, file, scope);
  const host = HOST_NAMES[dialect];
  const parent = basename(folder);
  const variables: VariableScope = {
    file: options.file,
    dialect,
    env: options.env ?? process.env,
    home: options.home ?? homedir(),
    workspaceFolder: resolve(
      options.workspaceFolder ?? (parent === '.vscode' || parent === '.cursor' ? dirname(folder) : folder),
    ),
  };

  checkTopLevel(value, dialect, file, scope);
  const section = dialect === 'vscode' ? 'servers' : 'mcpServers';
  const entries = value[section];
  if (!isRecord(entries)) {
    invalid(
      scope,
      child('$', section),
      entries === undefined
        ? `is missing: a ${host} config keeps its servers in a top-level "${section}" object.`
        : `must map server names to entries, received ${describe(entries)}.`,
    );
  }
  const toolpact = parseToolpactSection(value.toolpact, variables, folder);
  const known = Object.keys(entries);
  for (const name of toolpact.servers.keys()) {
    if (!known.includes(name)) {
      const listed = known.length > 0 ? known.map((entry) => `"${entry}"`).join(', ') : 'none';
      invalid(
        scope,
        child('$.toolpact.servers', name),
        `names a server that is not in "${section}". The servers there: ${listed}.`,
      );
    }
  }

  const servers: GatewayServer[] = [];
  const skipped: { name: string; reason: string }[] = [];
  for (const [name, raw] of Object.entries(entries)) {
    const path = child(child('$', section), name);
    const entry = parseEntry(raw, path, variables, folder);
    if ('skip' in entry) {
      skipped.push({ name, reason: entry.skip });
      continue;
    }
    const { target } = entry;
    if (target.kind === 'stdio') {
      const config = startsThisGateway(target, file, variables.home);
      if (config !== undefined) {
        skipped.push({
          name,
          reason: `it starts this same gateway (toolpact gateway --config ${config}), which would start itself again; it is left out.`,
        });
        continue;
      }
    }
    servers.push(server(name, target, toolpact.servers.get(name), entry.sandbox, scope));
  }

  const config: { -readonly [K in keyof GatewayConfig]: GatewayConfig[K] } = {
    file,
    dialect,
    servers,
    skipped,
    newTools: toolpact.newTools,
  };
  if (toolpact.policy !== undefined) config.policy = loadPolicy(toolpact.policy, scope);
  if (toolpact.search !== undefined) config.search = toolpact.search;
  if (toolpact.lock !== undefined) config.lock = toolpact.lock;
  return deepFreeze(config);
}

/** The host dialect of a parsed config; see {@link parseGatewayConfig} for the order of the clues. */
function detectDialect(value: Record<string, unknown>, file: string, scope: ErrorScope): HostDialect {
  const declared = declaredHost(value.toolpact, scope);
  if (declared !== undefined) return declared;
  if (value.servers !== undefined) return 'vscode';
  const name = basename(file);
  if (name === 'claude_desktop_config.json') return 'claude-desktop';
  if (name === '.mcp.json' || name === '.claude.json') return 'claude-code';
  const parent = basename(dirname(file));
  if (parent === '.cursor') return 'cursor';
  if (parent === '.vscode') return 'vscode';
  // A bare `mcpServers` file: read it as Claude Code's, the shape the others share.
  return 'claude-code';
}

/**
 * Top-level keys. Claude Desktop's file and Claude Code's `~/.claude.json` are the applications' own
 * settings files, full of keys that are not about servers: only `mcpServers` and `toolpact` are read there.
 */
function checkTopLevel(
  value: Record<string, unknown>,
  dialect: HostDialect,
  file: string,
  scope: ErrorScope,
): void {
  if (dialect === 'claude-desktop' || basename(file) === '.claude.json') return;
  const allowed =
    dialect === 'vscode'
      ? ['servers', 'inputs', 'toolpact', '$schema']
      : ['mcpServers', 'toolpact', '$schema'];
  checkKeys(scope, '$', value, allowed, `A ${HOST_NAMES[dialect]} MCP config`);
  if (dialect === 'vscode' && value.inputs !== undefined) {
    const inputs = value.inputs;
    if (!Array.isArray(inputs))
      invalid(scope, '$.inputs', `must be an array of inputs, received ${describe(inputs)}.`);
    inputs.forEach((input, index) => {
      if (!isRecord(input) || typeof input.id !== 'string' || typeof input.type !== 'string') {
        invalid(
          scope,
          child('$.inputs', index),
          `must be an input such as { "type": "promptString", "id": "api-key", "description": "…" }, received ${describe(input)}.`,
        );
      }
    });
  }
}

type ParsedEntry = { target: StdioTarget | RemoteTarget; sandbox?: GatewaySandbox } | { skip: string };

/** One host entry: its transport, keys, types and variables. */
function parseEntry(raw: unknown, path: string, scope: VariableScope, folder: string): ParsedEntry {
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
  const signIn = raw.oauth !== undefined ? 'oauth' : raw.auth !== undefined ? 'auth' : undefined;
  if (signIn !== undefined) {
    if (!isRecord(raw[signIn]))
      invalid(scope, `${path}.${signIn}`, `must be an object, received ${describe(raw[signIn])}.`);
    const hasToken = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
    if (!hasToken) {
      return {
        skip: `it signs in with OAuth ("${signIn}"), which needs a browser, and the gateway runs unattended. Give a token in "headers" instead, e.g. "Authorization": "Bearer ${envReference(scope.dialect, 'TOKEN')}".`,
      };
    }
  }
  return { target: { kind, url, headers } };
}

/** Applies `toolpact.servers.<name>`; a sandbox belongs to stdio servers only. */
function server(
  name: string,
  target: StdioTarget | RemoteTarget,
  settings: ServerSettings | undefined,
  hostSandbox: GatewaySandbox | undefined,
  scope: ErrorScope,
): GatewayServer {
  if (settings?.sandbox !== undefined && target.kind !== 'stdio') {
    invalid(
      scope,
      `${child('$.toolpact.servers', name)}.sandbox`,
      `applies to stdio servers only, but "${name}" is an ${target.kind} server, which the gateway connects to rather than starts.`,
    );
  }
  const result: { -readonly [K in keyof GatewayServer]: GatewayServer[K] } = {
    name,
    target,
    enabled: settings?.enabled ?? true,
    prefix: settings?.prefix ?? 'auto',
    alwaysLoaded: settings?.alwaysLoaded ?? false,
    tools: settings?.tools ?? {},
  };
  if (settings?.timeoutMs !== undefined) result.timeoutMs = settings.timeoutMs;
  const sandbox = settings?.sandbox ?? hostSandbox;
  if (sandbox !== undefined) result.sandbox = sandbox;
  return result;
}

function loadPolicy(
  policy: { readonly file: string } | { readonly value: unknown },
  scope: ErrorScope,
): Policy {
  const path = '$.toolpact.policy';
  try {
    return 'file' in policy
      ? loadPolicyFile(policy.file)
      : parsePolicy(policy.value, `${scope.file}#toolpact.policy`);
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    const message =
      'file' in policy ? `${scope.file}: ${path} names ${policy.file}. ${error.message}` : error.message;
    const code = error.code === 'unreadable_file' ? 'unreadable_file' : 'invalid_config';
    throw new GatewayConfigError(code, message, { file: scope.file, path, cause: error });
  }
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
