import { CATEGORIES, isToolCategory } from '../../contract/index.js';
import { checkKeys, child, describe, type ErrorScope, invalid, isRecord } from './error.js';
import { parseOAuthSettings } from './oauth-entry.js';
import type { GatewayOAuth, GatewaySandbox, HostDialect, ToolOverride } from './types.js';
import { resolvePath, type VariableScope } from './variables.js';

export const HOST_DIALECTS: readonly HostDialect[] = ['claude-desktop', 'claude-code', 'cursor', 'vscode'];

const SECTION_KEYS = [
  'host',
  'policy',
  'servers',
  'search',
  'newTools',
  'lock',
  'startTimeoutMs',
  'maxBinaryBytes',
  'auth',
  'tokens',
];
const SERVER_KEYS = ['enabled', 'prefix', 'timeoutMs', 'sandbox', 'alwaysLoaded', 'roots', 'tools', 'oauth'];
const SANDBOX_KEYS = ['read', 'write', 'network'];
const TOOL_KEYS = ['description', 'title', 'category', 'parameters', 'hidden'];
const PREFIXES = ['auto', 'always', 'never'] as const;

/** `toolpact.servers.<name>`: toolpact's settings for one of the host's servers, checked. */
export interface ServerSettings {
  readonly enabled?: boolean;
  readonly prefix?: 'auto' | 'always' | 'never';
  readonly timeoutMs?: number;
  readonly sandbox?: GatewaySandbox;
  readonly alwaysLoaded?: boolean | readonly string[];
  /**
   * Where the server's relative paths are read from, for the gate's path rules (absolute), and what
   * its `roots/list` is answered; `"client"`: the client's own roots are passed on.
   */
  readonly roots?: readonly string[] | 'client';
  readonly tools?: { readonly [remoteName: string]: ToolOverride };
  /** How a remote server signs in; over the host entry's own OAuth fields. */
  readonly oauth?: GatewayOAuth;
}

/** The `toolpact` section, checked; the policy is loaded by the caller. */
export interface ToolpactSection {
  readonly policy?: { readonly file: string } | { readonly value: unknown };
  readonly servers: ReadonlyMap<string, ServerSettings>;
  readonly search?: { readonly maxLoaded?: number };
  readonly newTools: 'allow' | 'withhold';
  readonly lock?: string;
  readonly startTimeoutMs?: number;
  /** Most decoded bytes of binary content in one result passed on to the client. */
  readonly maxBinaryBytes?: number;
  /** The auth file of `gateway --http`, absolute. */
  readonly auth?: string;
  /** Where sign-ins to remote servers are kept, absolute. */
  readonly tokens?: string;
}

const ROOT = '$.toolpact';

/** The `toolpact.host` value when there is one, checked. */
export function declaredHost(section: unknown, scope: ErrorScope): HostDialect | undefined {
  if (!isRecord(section) || section.host === undefined) return undefined;
  const host = section.host;
  if (typeof host === 'string' && (HOST_DIALECTS as readonly string[]).includes(host))
    return host as HostDialect;
  return invalid(
    scope,
    `${ROOT}.host`,
    `must be one of ${HOST_DIALECTS.map((name) => `"${name}"`).join(', ')}, received ${describe(host)}.`,
  );
}

/**
 * Checks the `toolpact` section. Paths (policy, lock, sandbox) take the dialect's variables and `~`, and
 * are relative to the config's folder `base`.
 */
export function parseToolpactSection(section: unknown, scope: VariableScope, base: string): ToolpactSection {
  if (section === undefined) return { servers: new Map(), newTools: 'allow' };
  if (!isRecord(section)) {
    invalid(scope, ROOT, `must be an object such as { "servers": { ... } }, received ${describe(section)}.`);
  }
  checkKeys(scope, ROOT, section, SECTION_KEYS, 'The toolpact section');
  const servers = new Map<string, ServerSettings>();
  const result: { -readonly [K in keyof ToolpactSection]: ToolpactSection[K] } = {
    servers,
    newTools: 'allow',
  };
  if (section.policy !== undefined) {
    const policy = section.policy;
    if (typeof policy === 'string' && policy.trim() !== '') {
      result.policy = { file: resolvePath(policy, `${ROOT}.policy`, scope, base) };
    } else if (isRecord(policy)) {
      result.policy = { value: policy };
    } else {
      invalid(
        scope,
        `${ROOT}.policy`,
        `must be the path of a policy file or a policy object such as { "rules": [ ... ] }, received ${describe(policy)}.`,
      );
    }
  }
  if (section.servers !== undefined) {
    const raw = section.servers;
    if (!isRecord(raw)) {
      invalid(scope, `${ROOT}.servers`, `must map server names to settings, received ${describe(raw)}.`);
    }
    for (const [name, settings] of Object.entries(raw)) {
      servers.set(name, parseServerSettings(settings, child(`${ROOT}.servers`, name), scope, base));
    }
  }
  if (section.search !== undefined) result.search = parseSearch(section.search, scope);
  if (section.newTools !== undefined) {
    if (section.newTools !== 'allow' && section.newTools !== 'withhold') {
      invalid(
        scope,
        `${ROOT}.newTools`,
        `must be "allow" or "withhold", received ${describe(section.newTools)}.`,
      );
    }
    result.newTools = section.newTools;
  }
  if (section.lock !== undefined) {
    if (typeof section.lock !== 'string' || section.lock.trim() === '') {
      invalid(
        scope,
        `${ROOT}.lock`,
        `must be the path of the lock file, received ${describe(section.lock)}.`,
      );
    }
    result.lock = resolvePath(section.lock, `${ROOT}.lock`, scope, base);
  }
  if (section.auth !== undefined) {
    if (typeof section.auth !== 'string' || section.auth.trim() === '') {
      invalid(
        scope,
        `${ROOT}.auth`,
        `must be the path of an auth file (see docs/auth.md), received ${describe(section.auth)}.`,
      );
    }
    result.auth = resolvePath(section.auth, `${ROOT}.auth`, scope, base);
  }
  if (section.tokens !== undefined) {
    if (typeof section.tokens !== 'string' || section.tokens.trim() === '') {
      invalid(
        scope,
        `${ROOT}.tokens`,
        `must be the path of the file that keeps sign-ins to remote servers, such as "~/.local/state/toolpact/mcp-tokens.json", received ${describe(section.tokens)}.`,
      );
    }
    result.tokens = resolvePath(section.tokens, `${ROOT}.tokens`, scope, base);
  }
  if (section.startTimeoutMs !== undefined) {
    const value = section.startTimeoutMs;
    // A timer cannot wait longer than about 24.8 days; ten minutes is more than any server needs.
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0 || value > 600_000) {
      invalid(
        scope,
        `${ROOT}.startTimeoutMs`,
        `must be a whole number of milliseconds from 1 to 600000 (default 30000), received ${describe(value)}.`,
      );
    }
    result.startTimeoutMs = value;
  }
  if (section.maxBinaryBytes !== undefined) {
    const value = section.maxBinaryBytes;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      invalid(
        scope,
        `${ROOT}.maxBinaryBytes`,
        `must be a whole number of bytes, 0 or more (default 10485760, 10 MiB; 0 passes no binary data on), received ${describe(value)}.`,
      );
    }
    result.maxBinaryBytes = value;
  }
  return result;
}

function parseSearch(value: unknown, scope: ErrorScope): { maxLoaded?: number } | undefined {
  const path = `${ROOT}.search`;
  if (value === false) return undefined;
  if (value === true) return {};
  if (!isRecord(value)) {
    return invalid(
      scope,
      path,
      `must be true, false or { "maxLoaded": <number> }, received ${describe(value)}.`,
    );
  }
  checkKeys(scope, path, value, ['maxLoaded'], 'The search setting');
  if (value.maxLoaded === undefined) return {};
  return { maxLoaded: positiveInteger(value.maxLoaded, `${path}.maxLoaded`, scope) };
}

function parseServerSettings(raw: unknown, path: string, scope: VariableScope, base: string): ServerSettings {
  if (!isRecord(raw)) {
    return invalid(scope, path, `must be an object such as { "enabled": false }, received ${describe(raw)}.`);
  }
  checkKeys(scope, path, raw, SERVER_KEYS, "A server's toolpact settings");
  const settings: { -readonly [K in keyof ServerSettings]: ServerSettings[K] } = {};
  if (raw.enabled !== undefined) settings.enabled = boolean(raw.enabled, `${path}.enabled`, scope);
  if (raw.prefix !== undefined) {
    if (!(PREFIXES as readonly unknown[]).includes(raw.prefix)) {
      invalid(
        scope,
        `${path}.prefix`,
        `must be "auto", "always" or "never", received ${describe(raw.prefix)}.`,
      );
    }
    settings.prefix = raw.prefix as ServerSettings['prefix'];
  }
  if (raw.timeoutMs !== undefined)
    settings.timeoutMs = positiveInteger(raw.timeoutMs, `${path}.timeoutMs`, scope);
  if (raw.sandbox !== undefined) settings.sandbox = parseSandbox(raw.sandbox, `${path}.sandbox`, scope, base);
  if (raw.alwaysLoaded !== undefined) {
    const value = raw.alwaysLoaded;
    if (typeof value === 'boolean') settings.alwaysLoaded = value;
    else
      settings.alwaysLoaded = Object.freeze(strings(value, `${path}.alwaysLoaded`, scope, 'true, false or'));
  }
  if (raw.roots === 'client') settings.roots = 'client';
  else if (raw.roots !== undefined) {
    settings.roots = Object.freeze(
      strings(raw.roots, `${path}.roots`, scope, '"client" or').map((entry, index) =>
        resolvePath(entry, child(`${path}.roots`, index), scope, base),
      ),
    );
  }
  if (raw.tools !== undefined) settings.tools = parseToolOverrides(raw.tools, `${path}.tools`, scope);
  if (raw.oauth !== undefined) settings.oauth = parseOAuthSettings(raw.oauth, `${path}.oauth`, scope);
  return settings;
}

/** `{ read, write, network }`: paths absolute, `network` false unless given. */
export function parseSandbox(raw: unknown, path: string, scope: VariableScope, base: string): GatewaySandbox {
  if (!isRecord(raw)) {
    return invalid(
      scope,
      path,
      `must be an object such as { "read": ["~/notes"], "write": [], "network": false }, received ${describe(raw)}.`,
    );
  }
  checkKeys(scope, path, raw, SANDBOX_KEYS, 'A sandbox');
  const paths = (key: 'read' | 'write') =>
    raw[key] === undefined
      ? []
      : strings(raw[key], `${path}.${key}`, scope).map((entry, index) =>
          resolvePath(entry, child(`${path}.${key}`, index), scope, base),
        );
  return Object.freeze({
    read: Object.freeze(paths('read')),
    write: Object.freeze(paths('write')),
    network: raw.network === undefined ? false : boolean(raw.network, `${path}.network`, scope),
  });
}

function parseToolOverrides(raw: unknown, path: string, scope: ErrorScope): ServerSettings['tools'] {
  if (!isRecord(raw)) {
    return invalid(
      scope,
      path,
      `must map the server's tool names to overrides such as { "description": "…" }, received ${describe(raw)}.`,
    );
  }
  const tools: Record<string, ToolOverride> = {};
  for (const [name, value] of Object.entries(raw)) {
    const at = child(path, name);
    if (!isRecord(value)) {
      invalid(scope, at, `must be an object such as { "hidden": true }, received ${describe(value)}.`);
    }
    checkKeys(scope, at, value, TOOL_KEYS, 'A tool override');
    const override: { -readonly [K in keyof ToolOverride]: ToolOverride[K] } = {};
    if (value.description !== undefined)
      override.description = text(value.description, `${at}.description`, scope);
    if (value.title !== undefined) override.title = text(value.title, `${at}.title`, scope);
    if (value.category !== undefined) {
      if (!isToolCategory(value.category)) {
        invalid(
          scope,
          `${at}.category`,
          `must be one of ${CATEGORIES.join(', ')}, received ${describe(value.category)}.`,
        );
      }
      override.category = value.category;
    }
    if (value.parameters !== undefined)
      override.parameters = parameters(value.parameters, `${at}.parameters`, scope);
    if (value.hidden !== undefined) override.hidden = boolean(value.hidden, `${at}.hidden`, scope);
    tools[name] = Object.freeze(override);
  }
  return Object.freeze(tools);
}

function parameters(
  raw: unknown,
  path: string,
  scope: ErrorScope,
): { readonly [dottedPath: string]: string } {
  if (!isRecord(raw)) {
    return invalid(
      scope,
      path,
      `must map parameter paths to descriptions, e.g. { "path": "…", "options.depth": "…" }, received ${describe(raw)}.`,
    );
  }
  const result: Record<string, string> = {};
  for (const [dotted, description] of Object.entries(raw)) {
    const at = child(path, dotted);
    if (dotted === '' || dotted.split('.').some((key) => key === '' || key === '__proto__')) {
      invalid(scope, at, 'is not a parameter path: give a dotted path such as "path" or "options.depth".');
    }
    result[dotted] = text(description, at, scope);
  }
  return Object.freeze(result);
}

function boolean(value: unknown, path: string, scope: ErrorScope): boolean {
  if (typeof value !== 'boolean') invalid(scope, path, `must be true or false, received ${describe(value)}.`);
  return value;
}

function text(value: unknown, path: string, scope: ErrorScope): string {
  if (typeof value !== 'string' || value.trim() === '') {
    invalid(scope, path, `must be a non-empty string, received ${describe(value)}.`);
  }
  return value;
}

function positiveInteger(value: unknown, path: string, scope: ErrorScope): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    invalid(scope, path, `must be a positive whole number, received ${describe(value)}.`);
  }
  return value;
}

function strings(value: unknown, path: string, scope: ErrorScope, alternatives = ''): string[] {
  const lead = alternatives === '' ? 'must be' : `must be ${alternatives}`;
  if (!Array.isArray(value))
    invalid(scope, path, `${lead} an array of strings, received ${describe(value)}.`);
  value.forEach((entry, index) => {
    if (typeof entry !== 'string' || entry.trim() === '') {
      invalid(scope, child(path, index), `must be a non-empty string, received ${describe(entry)}.`);
    }
  });
  return [...(value as string[])];
}
