// What `toolpact gateway init` decides before it writes: which host entries it can resolve, where the
// gateway's own files go (outside every folder a server exposes), and the starter policy.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { child, GatewayConfigError } from './config/error.js';
import { isWithin } from './config/own-files.js';
import { parseGatewayConfig } from './config/read-config.js';
import type { GatewayConfig, HostDialect } from './config/types.js';

/** A folder a configured server can reach, and why it counts. */
export interface ExposedFolder {
  readonly folder: string;
  readonly why: string;
}

/** A host's file read for init: the servers it can resolve, and those it cannot, each with the reason. */
export interface ResolvedHost {
  readonly config: GatewayConfig;
  /** The host's entries that resolve, as written. */
  readonly entries: { readonly [name: string]: unknown };
  readonly unresolved: readonly { readonly name: string; readonly reason: string }[];
}

// Codes of an entry that is well formed but cannot be resolved here (an editor input, an unset variable).
const UNRESOLVABLE = new Set(['unset_variable', 'unsupported_input']);

/**
 * Reads a host's config as init does: a server whose entry (or whose `toolpact.servers` settings) cannot
 * be used here is left out with the reason instead of aborting the whole file: an editor's
 * `${input:…}`, an unset variable, an unknown key, a value of the wrong type. An error that is not one
 * server's (the file, its top level, the policy) throws as {@link parseGatewayConfig} does.
 *
 * @example
 * const { config, unresolved } = resolveHostConfig('/work/.vscode/mcp.json', readHostText(file), process.env);
 */
export function resolveHostConfig(
  from: string,
  raw: { readonly [key: string]: unknown },
  env: NodeJS.ProcessEnv,
  home: string,
): ResolvedHost {
  const key = raw.servers !== undefined && raw.mcpServers === undefined ? 'servers' : 'mcpServers';
  let value: { [key: string]: unknown } = { ...raw };
  const unresolved: { name: string; reason: string }[] = [];
  for (;;) {
    try {
      const config = parseGatewayConfig(value, { file: from, env, home, refuseExposedFiles: false });
      const section = config.dialect === 'vscode' ? 'servers' : 'mcpServers';
      const entries = { ...((value[section] ?? {}) as { [name: string]: unknown }) };
      for (const skipped of config.skipped) delete entries[skipped.name];
      return { config, entries, unresolved };
    } catch (error) {
      if (!(error instanceof GatewayConfigError) || error.code === 'exposed_file') throw error;
      const entries = (value[key] ?? {}) as { [name: string]: unknown };
      const within = (at: string) =>
        error.path === at || error.path?.startsWith(`${at}.`) || error.path?.startsWith(`${at}[`);
      const name = Object.keys(entries).find(
        (each) => within(child(child('$', key), each)) || within(child('$.toolpact.servers', each)),
      );
      if (name === undefined) throw error;
      const said = error.message.slice(error.message.indexOf(': ') + 2);
      unresolved.push({
        name,
        reason: UNRESOLVABLE.has(error.code)
          ? `it cannot be resolved here. ${said}`
          : `its entry cannot be used. ${said}`,
      });
      const { [name]: _left, ...rest } = entries;
      value = { ...value, [key]: rest, ...withoutSettings(value.toolpact, name) };
    }
  }
}

function withoutSettings(toolpact: unknown, name: string): { toolpact?: unknown } {
  if (!toolpact || typeof toolpact !== 'object') return {};
  const section = toolpact as { servers?: { [name: string]: unknown } };
  if (!section.servers || typeof section.servers !== 'object') return { toolpact };
  const { [name]: _left, ...servers } = section.servers;
  return { toolpact: { ...section, servers } };
}

/**
 * The folders the host's servers can reach: their sandbox grants, the folders their arguments name
 * (the filesystem server's allowed directories) or their configured roots, and the workspace of a
 * project's config (`${workspaceFolder}`: the folder holding `.vscode` or `.cursor`, or `.mcp.json`'s).
 *
 * @example
 * exposedFolders(config); // [{ folder: '/home/me/project', why: 'the workspace folder' }, …]
 */
export function exposedFolders(config: GatewayConfig): ExposedFolder[] {
  const folders: ExposedFolder[] = [];
  const workspace = workspaceOf(config.file, config.dialect);
  if (workspace !== undefined) folders.push({ folder: workspace, why: 'the workspace folder' });
  for (const server of config.servers) {
    for (const grant of server.sandbox?.write ?? [])
      folders.push({ folder: grant, why: `a sandbox write grant of "${server.name}"` });
    for (const grant of server.sandbox?.read ?? [])
      folders.push({ folder: grant, why: `a sandbox read grant of "${server.name}"` });
    if (server.rootsFrom === 'working folder') continue;
    for (const root of server.roots) {
      folders.push({
        folder: root,
        why:
          server.rootsFrom === 'arguments'
            ? `a folder the arguments of "${server.name}" name`
            : `a root of "${server.name}"`,
      });
    }
  }
  return folders;
}

/** The first exposed folder that holds `file`, if any. */
export function exposingFolder(file: string, folders: readonly ExposedFolder[]): ExposedFolder | undefined {
  return folders.find((each) => isWithin(file, each.folder));
}

function workspaceOf(file: string, dialect: HostDialect): string | undefined {
  const folder = dirname(file);
  const parent = basename(folder);
  if (parent === '.vscode' || parent === '.cursor') return dirname(folder);
  if (dialect === 'vscode' || basename(file) === '.mcp.json') return folder;
  return undefined;
}

/**
 * Where init writes the gateway's config by default: the user's config folder
 * (`$XDG_CONFIG_HOME/toolpact/`, else `~/.config/toolpact/`), named after the host and the folder of its
 * file, with a short hash of its path so that two projects never share one.
 *
 * @example
 * defaultGatewayConfigFile('/home/me/app/.vscode/mcp.json', 'vscode', {}, '/home/me');
 * // '/home/me/.config/toolpact/gateway-vscode-app-1a2b3c4d.json'
 */
export function defaultGatewayConfigFile(
  from: string,
  dialect: HostDialect,
  env: NodeJS.ProcessEnv,
  home: string,
): string {
  const base = env.XDG_CONFIG_HOME?.startsWith('/') ? env.XDG_CONFIG_HOME : join(home, '.config');
  let real = from;
  try {
    real = realpathSync(from);
  } catch {
    // Not there: its path as given.
  }
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 8);
  const workspace = workspaceOf(from, dialect);
  const label = (workspace ? basename(workspace) : '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(0, 40);
  return join(base, 'toolpact', `gateway-${dialect}${label ? `-${label}` : ''}-${hash}.json`);
}

/**
 * A host entry made ready to move away from the host's file: VS Code's and Cursor's workspace variables
 * replaced by the workspace they meant there, and a relative `cwd` or `envFile` made absolute against the
 * host file's folder. The rest is copied as written (other variables stay unexpanded).
 *
 * @example
 * relocateEntry({ command: 'npx', args: ['server-filesystem', '${workspaceFolder}'] }, config);
 */
export function relocateEntry(entry: unknown, config: GatewayConfig): unknown {
  const workspace = workspaceOf(config.file, config.dialect);
  const editor = config.dialect === 'vscode' || config.dialect === 'cursor';
  const replace = (value: unknown): unknown => {
    if (typeof value === 'string') {
      if (!editor || workspace === undefined) return value;
      return value
        .replaceAll(`\${workspaceFolderBasename}`, basename(workspace))
        .replaceAll(`\${workspaceFolder}`, workspace);
    }
    if (Array.isArray(value)) return value.map(replace);
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, replace(each)]));
    }
    return value;
  };
  const moved = replace(entry);
  if (!moved || typeof moved !== 'object' || Array.isArray(moved)) return moved;
  const result = { ...(moved as { [key: string]: unknown }) };
  for (const key of ['cwd', 'envFile']) {
    const value = result[key];
    if (
      typeof value === 'string' &&
      !value.startsWith('/') &&
      !value.startsWith('~') &&
      !value.includes('${')
    ) {
      result[key] = resolve(dirname(config.file), value);
    }
  }
  return result;
}

/** A tool the gateway served at init, with what its server said about it. */
export interface SeenTool {
  readonly server: string;
  /** The name the gateway serves it under. */
  readonly name: string;
  readonly readOnlyHint: boolean;
}

/**
 * The starter policy: each tool the servers said is read-only (`readOnlyHint: true`) allowed by server
 * and by name, one rule each with the hint as its reason, for a person to review; everything else, and
 * every tool that appears later, asks.
 *
 * @example
 * starterPolicy([{ server: 'files', name: 'read_file', readOnlyHint: true }]).rules;
 * // [{ id: 'read-only:files:read_file', action: 'allow', source: 'mcp:files', tool: 'read_file', reason: … }]
 */
export function starterPolicy(tools: readonly SeenTool[]) {
  const ids = new Set<string>();
  const rules = tools
    .filter((tool) => tool.readOnlyHint)
    .sort((a, b) => a.server.localeCompare(b.server) || a.name.localeCompare(b.name))
    .map((tool) => {
      const stem = `read-only:${idPart(tool.server)}:${idPart(tool.name)}`.slice(0, 56);
      let id = stem;
      for (let count = 2; ids.has(id); count++) id = `${stem}-${count}`;
      ids.add(id);
      return {
        id,
        action: 'allow' as const,
        source: `mcp:${tool.server}`,
        tool: tool.name,
        reason: `the server says: read-only (readOnlyHint), not checked by toolpact; review before you trust it`,
      };
    });
  return {
    description:
      rules.length > 0
        ? 'Written by toolpact gateway init. Each allow rule is a tool its server says is read-only (readOnlyHint); the gateway does not check that claim. Review the list, remove what you do not trust; every other tool, and every tool that appears later, asks.'
        : 'Written by toolpact gateway init with no tools seen (--no-pin, or no server said any tool is read-only): every tool asks. Add allow rules for the tools you trust.',
    importedDefault: 'ask' as const,
    rules,
  };
}

function idPart(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 24) || '_';
}

/**
 * How the host's entry starts the gateway: this installed copy (`node` and the absolute path of its bin,
 * which works from any working folder and needs neither a PATH nor the network), or `npx` with the exact
 * version, which is right only once that version is published.
 */
export type GatewayRunner =
  | { readonly kind: 'installed'; readonly node: string; readonly bin: string }
  | { readonly kind: 'npx'; readonly version: string };

/**
 * The one entry a host's file gets in place of the servers init moved: the gateway over stdio.
 *
 * @example
 * gatewayHostEntry('claude-desktop', '/home/me/.config/toolpact/gateway.json',
 *   { kind: 'installed', node: '/usr/bin/node', bin: '/usr/lib/node_modules/toolpact/bin/toolpact.js' });
 * // { command: '/usr/bin/node', args: ['/usr/lib/node_modules/toolpact/bin/toolpact.js', 'gateway', '--config', '/home/me/…'] }
 */
export function gatewayHostEntry(dialect: HostDialect, configFile: string, runner: GatewayRunner) {
  const [command, ...start] =
    runner.kind === 'npx' ? ['npx', '-y', `toolpact@${runner.version}`] : [runner.node, runner.bin];
  return {
    ...(dialect === 'vscode' ? { type: 'stdio' } : {}),
    command: command!,
    args: [...start, 'gateway', '--config', configFile],
  };
}
