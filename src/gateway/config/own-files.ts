import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { child, GatewayConfigError } from './error.js';
import type { GatewayConfig, GatewaySandbox } from './types.js';

/** One of the gateway's own files: what a model must never be able to change through a server. */
export interface GatewayFile {
  readonly role: 'config' | 'lock' | 'policy' | 'audit' | 'tokens' | 'token key';
  /** Absolute. */
  readonly path: string;
}

/** A server that can reach one of the gateway's files, and how. */
export interface ExposedGatewayFile {
  readonly server: string;
  /** The folder (or file) that holds it: a sandbox grant or a folder the server's arguments name. */
  readonly folder: string;
  readonly via: 'sandbox read' | 'sandbox write' | 'arguments' | 'roots';
  readonly file: GatewayFile;
}

/**
 * The gateway's own files for a config: the config itself, its lock (`toolpact.lock`, else
 * `<config>.lock.json` beside it), its policy file when `toolpact.policy` names one, the token file and
 * its key file when a server signs in, and whatever the command line adds (`--lock`, `--policy`,
 * `--audit`), which replace or join those.
 *
 * @example
 * gatewayFiles(config, { audit: '/var/log/toolpact/audit.jsonl' });
 * // [{ role: 'config', path: … }, { role: 'lock', path: … }, { role: 'audit', path: '/var/log/toolpact/audit.jsonl' }]
 */
export function gatewayFiles(
  config: Pick<GatewayConfig, 'file' | 'lock' | 'policyFile' | 'tokens'>,
  flags: { readonly lock?: string; readonly policy?: string; readonly audit?: string } = {},
): GatewayFile[] {
  const files: GatewayFile[] = [
    { role: 'config', path: config.file },
    { role: 'lock', path: flags.lock ?? config.lock ?? defaultLockOf(config.file) },
  ];
  const policy = flags.policy ?? config.policyFile;
  if (policy !== undefined) files.push({ role: 'policy', path: policy });
  if (flags.audit !== undefined) files.push({ role: 'audit', path: flags.audit });
  files.push(...tokenFiles(config));
  return files.map((file) => ({ role: file.role, path: resolve(file.path) }));
}

/** `<config>.lock.json` beside the config, as the gateway defaults it. */
export function defaultLockOf(configFile: string): string {
  return join(dirname(configFile), `${basename(configFile).replace(/\.jsonc?$/i, '')}.lock.json`);
}

/**
 * Whether `path` is `folder` or inside it, both compared by their real paths (a symbolic link to the
 * folder, or a `..` in either, does not get around it); a path that does not exist yet is compared
 * through its nearest existing parent.
 *
 * @example
 * isWithin('/home/me/project/.vscode/gateway.json', '/home/me/project'); // true
 * isWithin('/home/me/project-b/gateway.json', '/home/me/project'); // false
 */
export function isWithin(path: string, folder: string): boolean {
  const inner = realPathOf(path);
  const outer = realPathOf(folder);
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : `${outer}${sep}`);
}

/**
 * Refuses a sandbox grant that holds one of the gateway's files: a server that may write there could
 * allow itself everything at the next start, and one that may read there reads the audit. Throws a
 * {@link GatewayConfigError} (`exposed_file`) naming the grant, the file and the way out.
 *
 * @example
 * refuseGrantsOverGatewayFiles(config, gatewayFiles(config, { audit }));
 */
export function refuseGrantsOverGatewayFiles(
  config: Pick<GatewayConfig, 'file' | 'servers' | 'dialect'>,
  files: readonly GatewayFile[],
  grantPath: (server: string, kind: 'read' | 'write') => string = (server, kind) =>
    `${child('$.toolpact.servers', server)}.sandbox.${kind}`,
  given: (file: GatewayFile) => string = (file) => file.path,
): void {
  for (const server of config.servers) {
    if (!server.sandbox) continue;
    for (const [kind, grant] of grantsOf(server.sandbox)) {
      const file = files.find((each) => isWithin(each.path, grant));
      if (!file) continue;
      throw new GatewayConfigError(
        'exposed_file',
        `${config.file}: ${grantPath(server.name, kind)} grants ${grant}, which holds the gateway's ${file.role} ${given(file)}. The server "${server.name}" could ${kind === 'write' ? 'rewrite' : 'read'} it, and a model calling its tools could change what the gateway allows. Keep the gateway's files outside every grant: narrow the grant, or move the ${file.role} (toolpact gateway init writes them in ~/.config/toolpact/).`,
        { file: config.file, path: grantPath(server.name, kind) },
      );
    }
  }
}

/**
 * The servers that can reach one of the gateway's files, sandboxed or not: through a sandbox grant,
 * or a folder their arguments name (the filesystem server's allowed directories) or their configured
 * roots. For `gateway check` to flag; sorted by server, then file.
 *
 * @example
 * for (const found of exposedGatewayFiles(config, gatewayFiles(config)))
 *   console.log(`${found.server} can reach the ${found.file.role} ${found.file.path} through ${found.folder}`);
 */
export function exposedGatewayFiles(
  config: Pick<GatewayConfig, 'servers'>,
  files: readonly GatewayFile[],
): ExposedGatewayFile[] {
  const found: ExposedGatewayFile[] = [];
  for (const server of config.servers) {
    const folders: [ExposedGatewayFile['via'], string][] = [];
    if (server.sandbox) {
      for (const [kind, grant] of grantsOf(server.sandbox)) folders.push([`sandbox ${kind}`, grant]);
    }
    if (server.rootsFrom !== 'working folder') {
      for (const root of server.roots)
        folders.push([server.rootsFrom === 'arguments' ? 'arguments' : 'roots', root]);
    }
    for (const file of files) {
      const holder = folders.find(([, folder]) => isWithin(file.path, folder));
      if (holder) found.push({ server: server.name, folder: holder[1], via: holder[0], file });
    }
  }
  return found.sort((a, b) => a.server.localeCompare(b.server) || a.file.path.localeCompare(b.file.path));
}

/**
 * Refuses a token file (or its key file) that a server can reach in any way: a sandbox grant, a folder
 * its arguments name, or its configured roots. Whoever reads the file and its key holds every sign-in.
 * Throws a {@link GatewayConfigError} (`exposed_file`) naming the server, the folder and the way out.
 *
 * @example
 * refuseExposedTokens(config, '$.toolpact.tokens');
 */
export function refuseExposedTokens(
  config: Pick<GatewayConfig, 'file' | 'servers' | 'tokens'>,
  setting: string | undefined,
): void {
  const [found] = exposedGatewayFiles(config, tokenFiles(config));
  if (!found) return;
  throw new GatewayConfigError(
    'exposed_file',
    `${config.file}: the gateway keeps sign-ins in ${found.file.role === 'tokens' ? found.file.path : `${found.file.path} (the key of the token file)`}, which the server "${found.server}" can reach (through ${found.via} ${found.folder}): a model calling its tools could read every sign-in. Keep the token file outside every folder a server can reach: set ${setting ?? '"toolpact.tokens"'} to a path elsewhere (the default is ~/.local/state/toolpact/mcp-tokens.json), or narrow the server's folders.`,
    { file: config.file, ...(setting ? { path: setting } : {}) },
  );
}

/** The token file and its key file (used when no key is set in the environment), when a server signs in. */
function tokenFiles(config: Pick<GatewayConfig, 'tokens'>): GatewayFile[] {
  if (config.tokens === undefined) return [];
  return [
    { role: 'tokens', path: resolve(config.tokens) },
    { role: 'token key', path: resolve(`${config.tokens}.key`) },
  ];
}

function grantsOf(sandbox: GatewaySandbox): ['read' | 'write', string][] {
  return [
    ...sandbox.write.map((grant) => ['write', grant] as ['write', string]),
    ...sandbox.read.map((grant) => ['read', grant] as ['read', string]),
  ];
}

function realPathOf(path: string): string {
  const absolute = resolve(path);
  const rest: string[] = [];
  let current = absolute;
  for (;;) {
    if (existsSync(current)) {
      try {
        return join(realpathSync(current), ...rest.reverse());
      } catch {
        return absolute;
      }
    }
    const parent = dirname(current);
    if (parent === current) return absolute;
    rest.push(basename(current));
    current = parent;
  }
}
