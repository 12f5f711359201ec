// The gateway's config is a host's own MCP file. The dialects follow each host's documentation:
// - Claude Desktop: https://modelcontextprotocol.io/docs/develop/connect-local-servers
// - Claude Code:    https://code.claude.com/docs/en/mcp
// - Cursor:         https://cursor.com/docs/mcp
// - VS Code:        https://code.visualstudio.com/docs/copilot/reference/mcp-configuration
//                   https://code.visualstudio.com/docs/reference/variables-reference

import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { defaultTokenFile } from '../../mcp/oauth/token-store.js';
import { parsePolicy } from '../../policy/define-policy.js';
import { loadPolicyFile } from '../../policy/load-policy.js';
import type { Policy } from '../../policy/policy.js';
import { PolicyError } from '../../policy/policy-error.js';
import { deepFreeze } from '../../util/deep-freeze.js';
import { checkGatewayPolicy } from '../gateway-policy.js';
import {
  checkKeys,
  child,
  describe,
  type ErrorScope,
  GatewayConfigError,
  invalid,
  isRecord,
} from './error.js';
import { HOST_NAMES, parseEntry } from './host-entry.js';
import { checkClientPair } from './oauth-entry.js';
import { gatewayFiles, refuseExposedTokens, refuseGrantsOverGatewayFiles } from './own-files.js';
import { startsThisGateway } from './self.js';
import { parseConfigText, syntaxError } from './text.js';
import { declaredHost, parseToolpactSection, type ServerSettings } from './toolpact-section.js';
import type {
  GatewayConfig,
  GatewaySandbox,
  GatewayServer,
  HostDialect,
  RemoteTarget,
  StdioTarget,
} from './types.js';
import type { VariableScope } from './variables.js';

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
  /**
   * Default true: a sandbox grant that holds the gateway's own config, lock or policy file is refused
   * (`exposed_file`), and so is a token file any server can reach. `gateway init` turns it off to read a host's file, which it never serves from.
   */
  readonly refuseExposedFiles?: boolean;
}

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
 * would start this same gateway, or that needs what the gateway cannot do (a `headersHelper` command,
 * Claude Code's `oauth.authServerMetadataUrl`), goes to `skipped` with the reason. A remote entry
 * without an `Authorization` header carries its OAuth settings (`target.oauth`), and the config then
 * names its token file (`tokens`), which no server may reach. Errors are {@link GatewayConfigError}s.
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
    servers.push(server(name, target, toolpact.servers.get(name), entry.sandbox, scope, variables.home));
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
  if (toolpact.auth !== undefined) config.auth = toolpact.auth;
  if (servers.some((entry) => entry.target.kind !== 'stdio' && entry.target.oauth !== undefined))
    config.tokens = toolpact.tokens ?? defaultTokenFile(variables.env);
  if (toolpact.startTimeoutMs !== undefined) config.startTimeoutMs = toolpact.startTimeoutMs;
  if (toolpact.maxBinaryBytes !== undefined) config.maxBinaryBytes = toolpact.maxBinaryBytes;
  if (toolpact.policy !== undefined && 'file' in toolpact.policy) config.policyFile = toolpact.policy.file;
  if (options.refuseExposedFiles !== false) {
    refuseGrantsOverGatewayFiles(config, gatewayFiles(config), (name, kind) =>
      toolpact.servers.get(name)?.sandbox !== undefined
        ? `${child('$.toolpact.servers', name)}.sandbox.${kind}`
        : `${child(child('$', section), name)}.sandbox.filesystem.allowWrite`,
    );
    refuseExposedTokens(config, toolpact.tokens !== undefined ? '$.toolpact.tokens' : undefined);
  }
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

/** Applies `toolpact.servers.<name>`; a sandbox belongs to stdio servers only. */
function server(
  name: string,
  entryTarget: StdioTarget | RemoteTarget,
  settings: ServerSettings | undefined,
  hostSandbox: GatewaySandbox | undefined,
  scope: ErrorScope,
  home: string,
): GatewayServer {
  const target = signInOf(name, entryTarget, settings, scope);
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
    ...rootsOf(target, settings?.roots === 'client' ? undefined : settings?.roots, scope.file, home),
    rootsAnswer: settings?.roots === 'client' ? 'client' : settings?.roots ? 'config' : 'none',
    tools: settings?.tools ?? {},
  };
  if (settings?.timeoutMs !== undefined) result.timeoutMs = settings.timeoutMs;
  const sandbox = settings?.sandbox ?? hostSandbox;
  if (sandbox !== undefined) result.sandbox = sandbox;
  return result;
}

/** The remote target with `toolpact.servers.<name>.oauth` over the host entry's own OAuth fields. */
function signInOf(
  name: string,
  target: StdioTarget | RemoteTarget,
  settings: ServerSettings | undefined,
  scope: ErrorScope,
): StdioTarget | RemoteTarget {
  const path = `${child('$.toolpact.servers', name)}.oauth`;
  if (target.kind !== 'stdio' && target.oauth !== undefined && settings?.oauth === undefined) {
    checkClientPair(target.oauth, path, scope);
    return target;
  }
  if (settings?.oauth !== undefined) {
    if (target.kind === 'stdio') {
      invalid(
        scope,
        path,
        `applies to remote (http) servers only, but "${name}" is a stdio server, which the gateway starts rather than signs in to.`,
      );
    }
    if (target.oauth === undefined) {
      invalid(
        scope,
        path,
        `is given, but "${name}" sends an Authorization header, so it never signs in. Remove the header to sign in with OAuth (toolpact gateway login ${name}), or remove this setting.`,
      );
    }
    const merged: RemoteTarget = { ...target, oauth: { ...target.oauth, ...settings.oauth } };
    checkClientPair(merged.oauth ?? {}, path, scope);
    return merged;
  }
  return target;
}

/**
 * The roots of a server: as configured; else the folders its arguments name that exist (the
 * filesystem server's allowed directories, a git server's repository); else its working folder (for
 * a remote server, the config's folder, where nothing better is known).
 */
function rootsOf(
  target: StdioTarget | RemoteTarget,
  configured: readonly string[] | undefined,
  file: string,
  home: string,
): Pick<GatewayServer, 'roots' | 'rootsFrom'> {
  if (configured !== undefined) return { roots: configured, rootsFrom: 'config' };
  if (target.kind === 'stdio') {
    const cwd = target.cwd ?? dirname(file);
    const found = new Set<string>();
    for (const argument of target.args) {
      // `--root=/data` as well as `/data`.
      const value =
        argument.includes('=') && argument.startsWith('-')
          ? argument.slice(argument.indexOf('=') + 1)
          : argument;
      if (value === '' || value.startsWith('-') || /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) continue;
      if (!value.startsWith('/') && !value.startsWith('.') && !value.startsWith('~')) continue;
      const path = value.startsWith('~') ? join(home, value.slice(1)) : resolve(cwd, value);
      try {
        if (statSync(path).isDirectory()) found.add(path);
      } catch {
        // Not a folder here: not a root.
      }
    }
    if (found.size > 0) return { roots: Object.freeze([...found]), rootsFrom: 'arguments' };
    return { roots: Object.freeze([cwd]), rootsFrom: 'working folder' };
  }
  return { roots: Object.freeze([dirname(file)]), rootsFrom: 'working folder' };
}

function loadPolicy(
  policy: { readonly file: string } | { readonly value: unknown },
  scope: ErrorScope,
): Policy {
  const path = '$.toolpact.policy';
  try {
    return 'file' in policy
      ? checkGatewayPolicy(loadPolicyFile(policy.file), basename(policy.file))
      : checkGatewayPolicy(
          parsePolicy(policy.value, `${scope.file}#toolpact.policy`),
          `${scope.file}#toolpact.policy`,
        );
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    const message =
      'file' in policy ? `${scope.file}: ${path} names ${policy.file}. ${error.message}` : error.message;
    const code = error.code === 'unreadable_file' ? 'unreadable_file' : 'invalid_config';
    throw new GatewayConfigError(code, message, { file: scope.file, path, cause: error });
  }
}
