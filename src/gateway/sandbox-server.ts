import { existsSync, lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { bubblewrapOptions, SYSTEM_DIRS } from '../sandbox/bubblewrap-args.js';
import { isWithin } from '../sandbox/shared-folders.js';
import { findOnPath, isExecutableFile } from '../util/executables.js';
import type { GatewaySandbox } from './config/types.js';
import {
  isDirectory,
  resolveServerCommand,
  type SandboxedCommandOptions,
  type SandboxServerTarget,
} from './sandbox-command.js';
import { SandboxUnavailableError } from './sandbox-error.js';

export type { SandboxedCommandOptions, SandboxServerTarget } from './sandbox-command.js';
export { type SandboxUnavailableCode, SandboxUnavailableError } from './sandbox-error.js';

// A sandboxed MCP server is a long-running process whose stdin and stdout are the protocol: the
// SDK's stdio transport starts bubblewrap with the command line built here, and bubblewrap starts
// the server. Unlike the sandbox for shell commands (src/sandbox), nothing is collected and nothing
// is limited but what the server can see: the system's read-only files, its runtime and its
// package, and the paths the config grants.
//
// The granted paths are bound at the same path inside, so the server's own arguments and
// environment (a root folder, a database file) keep working unchanged. For the same reason the
// host paths in bubblewrap's command line are no secret from the server: it is given them anyway.
// (The stdio transport offers no extra pipe for `--args <fd>`, which the shell sandbox uses.)
//
// The server runs as the host user's own uid and gid, so that the granted files the user owns stay
// readable and writable; as root it is root with every capability dropped (bubblewrap keeps them
// all for root unless told), which leaves it the file permissions and no more, and /proc read-only
// (bubblewrapOptions: a root-owned sysctl file opens for writing to the host's root whatever its
// capabilities). The namespaces and mounts are the shell sandbox's, from the same builder.

/** The command line that starts the server under bubblewrap, for the SDK's stdio transport. */
export interface SandboxedCommand {
  /** The `env` program, which starts bubblewrap (the first of `args` after `-i`) with an empty environment. */
  readonly command: string;
  readonly args: string[];
  /** Empty: `env -i` drops whatever the transport adds; the server's own is set inside (`--setenv`). */
  readonly env: Record<string, string>;
  /** bubblewrap's working folder on the host (unset: the server's is set inside with `--chdir`). */
  readonly cwd?: string;
  /** What the server can see beyond the system's read-only files: its runtime, its package, the grants. */
  readonly granted: { readonly read: string[]; readonly write: string[] };
}

/** The command that installs bubblewrap on Debian and Ubuntu. */
export const INSTALL_BUBBLEWRAP = 'apt-get install bubblewrap';

// With the network shared: name resolution and the certificate authorities.
const NETWORK_ETC_ENTRIES = [
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/nsswitch.conf',
  '/etc/ssl',
  '/etc/ca-certificates',
];
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';
// Never granted: the sandbox's own /proc and /dev would be covered by the host's.
const UNGRANTABLE = ['/proc', '/dev'];
/**
 * The bwrap program on PATH, or `undefined` when bubblewrap is not installed.
 *
 * @example
 * const bwrap = findBubblewrap(); // '/usr/bin/bwrap'
 */
export function findBubblewrap(path: string | undefined = process.env.PATH): string | undefined {
  return findOnPath('bwrap', path);
}

/**
 * The bubblewrap command line for a long-running stdio MCP server: every namespace unshared (user,
 * PID, IPC, UTS, cgroup, and the network unless `network` is true), no further user namespaces,
 * every capability dropped, the process ended with its parent, in a session of its own. Inside it
 * sees, read-only, `/usr` and the loader's files, the few files of `/etc` programs need (with the
 * network: name resolution and certificates too), its runtime (for `node`, the whole node
 * installation), and its package (the folder holding the script's `package.json`, with every
 * `node_modules` above it so hoisted dependencies resolve); then `sandbox.read` read-only and
 * `sandbox.write` read-write, each at its own path; and a private `/tmp`, `/proc` (its PID
 * namespace's, `/proc/sys` and then all of it read-only) and `/dev`. Nothing else of the host; the
 * package is never a shared folder such as `/tmp` or the home folder (a loose script there is given
 * alone). Its environment is the target's `env` over a minimal one (`PATH` of the system, `HOME` =
 * `/tmp` unless the home folder is granted), and bubblewrap's own, which its init shows as
 * `/proc/1/environ`, is empty (`env -i`); its working folder is the target's `cwd` when that is
 * visible inside, else `/tmp`.
 *
 * An `npx -y <package>` server is resolved first to `node <the installed package's bin>` (see
 * `resolveNpxCommand`): inside there is no network and no npm cache to fetch it. Throws
 * {@link SandboxUnavailableError} instead of ever returning an unconfined command: bubblewrap
 * missing, a package not installed, a launcher that cannot be resolved, a granted path missing, a
 * package rooted in a shared folder.
 *
 * @example
 * const sandboxed = sandboxedCommand(
 *   { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/ada/notes'], env: {} },
 *   { read: [], write: ['/home/ada/notes'], network: false },
 *   { server: 'filesystem', searchFrom: [configDir] },
 * );
 * await connectMcpServer({ command: sandboxed.command, args: sandboxed.args, env: sandboxed.env });
 */
export function sandboxedCommand(
  target: SandboxServerTarget,
  sandbox: GatewaySandbox,
  options: SandboxedCommandOptions = {},
): SandboxedCommand {
  const server = options.server;
  const who = server === undefined ? 'The server' : `The server "${server}"`;
  const bwrap = options.bwrap ?? findBubblewrap();
  if (bwrap === undefined || !isExecutableFile(bwrap)) {
    throw new SandboxUnavailableError(
      'bubblewrap_missing',
      `${who} asks for a sandbox, but bubblewrap (bwrap) ${options.bwrap === undefined ? 'is not installed' : `is not at "${options.bwrap}"`}, so it was not started (it never runs unconfined). Install it with: ${INSTALL_BUBBLEWRAP} (the "bubblewrap" package on other systems), or remove the server's "sandbox" section to run it unconfined.`,
      server,
    );
  }
  const home = resolve(options.home ?? homedir());
  const base = target.cwd !== undefined ? resolve(target.cwd) : process.cwd();

  // Granted paths: checked before anything starts; a path both read and written is written.
  const write = unique(sandbox.write.map((path) => checkGrant(path, 'write', who, options)));
  const read = unique(sandbox.read.map((path) => checkGrant(path, 'read', who, options))).filter(
    (path) => !write.includes(path),
  );
  const grants = [...write, ...read];

  const { command, args, runtimes, packages } = resolveServerCommand(target, base, home, who, options);

  // What the server needs to start, read-only, unless a grant or the system already shows it.
  const shown = (path: string, among: readonly string[]) => among.some((dir) => isWithin(path, dir));
  const needed: string[] = [];
  for (const path of [...runtimes, ...packages].sort(byLength)) {
    if (isSystemPath(path) || shown(path, grants) || shown(path, needed)) continue;
    needed.push(path);
  }
  const readOnly = [...needed, ...read];

  const visible = [...readOnly, ...write];
  const cwd = target.cwd !== undefined && shown(base, visible) ? base : '/tmp';
  const runtimeBins = runtimes
    .map((root) => join(root, 'bin'))
    .filter((dir) => !isSystemPath(dir) && isDirectory(dir) && shown(dir, visible));
  const bwrapArgs = bubblewrapOptions({
    uid: process.getuid?.() ?? 65534,
    gid: process.getgid?.() ?? 65534,
    network: sandbox.network,
    ...(sandbox.network ? { etc: NETWORK_ETC_ENTRIES } : {}),
    // A folder before anything inside it, so that a grant within another keeps its own mode.
    binds: [
      ...readOnly.map((path) => ({ source: path, writable: false })),
      ...write.map((path) => ({ source: path, writable: true })),
    ].sort((a, b) => byLength(a.source, b.source)),
    cwd,
    env: {
      PATH: [...runtimeBins, SYSTEM_PATH].join(':'),
      HOME: grants.some((path) => isWithin(home, path)) ? home : '/tmp',
      TMPDIR: '/tmp',
      LANG: 'C.UTF-8',
      ...target.env,
    },
  });
  // bubblewrap's own environment is what its first process inside, the PID namespace's init, shows
  // as /proc/1/environ; the SDK's stdio transport always adds some of ours (HOME, PATH, USER…), so
  // bubblewrap is started through `env -i`, which empties it and becomes bubblewrap (same process).
  return {
    command: emptyEnvironment(who, server),
    args: ['-i', resolve(bwrap), ...bwrapArgs, '--', command, ...args],
    env: {},
    granted: { read: readOnly, write: [...write].sort(byLength) },
  };
}

/** The `env` program of the system, which starts bubblewrap with an empty environment (`env -i`). */
function emptyEnvironment(who: string, server: string | undefined): string {
  const env = ['/usr/bin/env', '/bin/env'].find((path) => isExecutableFile(path));
  if (env === undefined) {
    throw new SandboxUnavailableError(
      'env_missing',
      `${who} asks for a sandbox, which is started through "env -i" so that none of the gateway's environment reaches it, but there is no /usr/bin/env; it was not started. Install coreutils.`,
      server,
    );
  }
  return env;
}

/** Checks one granted path: absolute, existing, grantable. Returns it normalised. */
function checkGrant(
  path: string,
  kind: 'read' | 'write',
  who: string,
  options: SandboxedCommandOptions,
): string {
  const where = `toolpact.servers${options.server === undefined ? '' : `.${options.server}`}.sandbox.${kind}`;
  const fail = (why: string) =>
    new SandboxUnavailableError(
      'invalid_grant',
      `${who} was not started: its sandbox grants ${kind} access to "${path}", which ${why}. Fix ${where}${options.config ? ` in ${options.config}` : ''}.`,
      options.server,
    );
  if (typeof path !== 'string' || !isAbsolute(path)) throw fail('is not an absolute path');
  const normal = resolve(path);
  if (normal === '/') throw fail('is the whole file system');
  if (UNGRANTABLE.some((dir) => isWithin(normal, dir)))
    throw fail("is the sandbox's own (it has a private one)");
  if (!existsSync(normal)) throw fail('does not exist; create it, or remove it from the list');
  return normal;
}

/** Already read-only inside: `/usr` and the top-level system folders. */
function isSystemPath(path: string): boolean {
  if (isWithin(path, '/usr')) return true;
  return SYSTEM_DIRS.some((dir) => {
    try {
      return !lstatSync(dir).isSymbolicLink() && isWithin(path, dir);
    } catch {
      return false;
    }
  });
}

function byLength(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}
