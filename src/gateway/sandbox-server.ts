import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { ETC_ENTRIES, SYSTEM_DIRS, systemFolderArgs } from '../sandbox/bubblewrap-args.js';
import { findOnPath, isExecutableFile, shebangOf } from '../util/executables.js';
import type { GatewaySandbox } from './config/types.js';
import { defaultNpxCacheDir, packageLauncher, parseNpxCommand, resolveNpxCommand } from './npx.js';

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
// all for root unless told), which leaves it the file permissions and no more.

/** The server's own command, as the host's config gives it. */
export interface SandboxServerTarget {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: { readonly [name: string]: string };
  readonly cwd?: string;
}

/** Options of {@link sandboxedCommand}. */
export interface SandboxedCommandOptions {
  /** The bwrap program (default: `bwrap` found on PATH). */
  readonly bwrap?: string;
  /** The user's home folder, for `HOME` inside (default: the current user's). */
  readonly home?: string;
  /** Where an `npx` package may be installed: each folder's node_modules and those above it (default: the target's cwd). */
  readonly searchFrom?: readonly string[];
  /** The gateway's npx install cache (default: {@link defaultNpxCacheDir}). */
  readonly cacheDir?: string;
  /** The server's name in the config, for the messages. */
  readonly server?: string;
  /** The config file, for the messages. */
  readonly config?: string;
}

/** The command line that starts the server under bubblewrap, for the SDK's stdio transport. */
export interface SandboxedCommand {
  /** The bwrap program. */
  readonly command: string;
  readonly args: string[];
  /** bubblewrap's own environment; the server's is set inside (`--clearenv`, `--setenv`). */
  readonly env: Record<string, string>;
  /** bubblewrap's working folder on the host (unset: the server's is set inside with `--chdir`). */
  readonly cwd?: string;
  /** What the server can see beyond the system's read-only files: its runtime, its package, the grants. */
  readonly granted: { readonly read: string[]; readonly write: string[] };
}

/** Why a sandboxed server was not started. */
export type SandboxUnavailableCode =
  /** bubblewrap is not installed, or not at the path given. */
  | 'bubblewrap_missing'
  /** An `npx` package is not installed, and the sandbox has no network to fetch it. */
  | 'package_not_installed'
  /** The command fetches a package at start with a launcher that is not resolved (`pnpm dlx`, `bunx`, `uvx`…). */
  | 'unsupported_launcher'
  /** The command is not on PATH, or not an executable file. */
  | 'command_not_found'
  /** A granted path is not absolute, does not exist, or may not be granted (`/`, `/proc`, `/dev`). */
  | 'invalid_grant';

/**
 * A server that asks for a sandbox and cannot have one: it is not started (never unconfined). The
 * message names the server, says what is missing and what to do; it is for the person running the
 * gateway, not for the model.
 *
 * @example
 * try { sandboxedCommand(target, sandbox, { server: 'notes' }) } catch (error) {
 *   if (error instanceof SandboxUnavailableError) console.error(error.code, error.message);
 * }
 */
export class SandboxUnavailableError extends Error {
  override readonly name = 'SandboxUnavailableError';
  constructor(
    readonly code: SandboxUnavailableCode,
    message: string,
    readonly server?: string,
  ) {
    super(message);
  }
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
// node's options that take the next word as their value, and those after which no script follows.
const NODE_VALUE_OPTIONS = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '-C',
  '--conditions',
  '--input-type',
  '--env-file',
  '--title',
  '--inspect-port',
  '--watch-path',
]);
const NODE_NO_SCRIPT = new Set(['-e', '--eval', '-p', '--print', '-i', '--interactive']);

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
 * `sandbox.write` read-write, each at its own path; and a private `/tmp`, `/proc` and `/dev`.
 * Nothing else of the host. Its environment is the target's `env` over a minimal one (`PATH` of the
 * system, `HOME` = `/tmp` unless the home folder is granted); its working folder is the target's
 * `cwd` when that is visible inside, else `/tmp`.
 *
 * An `npx -y <package>` server is resolved first to `node <the installed package's bin>` (see
 * `resolveNpxCommand`): inside there is no network and no npm cache to fetch it. Throws
 * {@link SandboxUnavailableError} instead of ever returning an unconfined command: bubblewrap
 * missing, a package not installed, a launcher that cannot be resolved, a granted path missing.
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

  const uid = process.getuid?.() ?? 65534;
  const gid = process.getgid?.() ?? 65534;
  const bwrapArgs = [
    '--unshare-all',
    ...(sandbox.network ? ['--share-net'] : []),
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    // A session of its own, so it cannot reach a terminal of ours; its stdio are pipes all the same.
    '--new-session',
    '--hostname',
    'sandbox',
    '--uid',
    String(uid),
    '--gid',
    String(gid),
    '--cap-drop',
    'ALL',
    ...systemFolderArgs(),
  ];
  for (const entry of [...ETC_ENTRIES, ...(sandbox.network ? NETWORK_ETC_ENTRIES : [])]) {
    bwrapArgs.push('--ro-bind-try', entry, entry);
  }
  bwrapArgs.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  // A folder before anything inside it, so that a grant within another keeps its own mode.
  const binds = [
    ...readOnly.map((path) => ({ path, writable: false })),
    ...write.map((path) => ({ path, writable: true })),
  ].sort((a, b) => byLength(a.path, b.path));
  for (const bind of binds) bwrapArgs.push(bind.writable ? '--bind' : '--ro-bind', bind.path, bind.path);

  const visible = [...readOnly, ...write];
  const cwd = target.cwd !== undefined && shown(base, visible) ? base : '/tmp';
  const runtimeBins = runtimes
    .map((root) => join(root, 'bin'))
    .filter((dir) => !isSystemPath(dir) && isDirectory(dir) && shown(dir, visible));
  const environment: Record<string, string> = {
    PATH: [...runtimeBins, SYSTEM_PATH].join(':'),
    HOME: grants.some((path) => isWithin(home, path)) ? home : '/tmp',
    TMPDIR: '/tmp',
    LANG: 'C.UTF-8',
    ...target.env,
  };
  bwrapArgs.push('--chdir', cwd, '--clearenv');
  for (const [name, value] of Object.entries(environment)) bwrapArgs.push('--setenv', name, value);
  // The sandbox's own root is a tmpfs made by bubblewrap; left writable it would be unbounded memory.
  bwrapArgs.push('--remount-ro', '/', '--', command, ...args);
  return {
    command: bwrap,
    args: bwrapArgs,
    env: {},
    granted: { read: readOnly, write: [...write].sort(byLength) },
  };
}

/** The command to run inside, the runtimes it needs and its package folders, all real paths. */
function resolveServerCommand(
  target: SandboxServerTarget,
  base: string,
  home: string,
  who: string,
  options: SandboxedCommandOptions,
): { command: string; args: string[]; runtimes: string[]; packages: string[] } {
  const pathVariable = target.env.PATH ?? process.env.PATH;
  const launcher = packageLauncher(target);
  if (launcher === 'npx') {
    const parsed = parseNpxCommand(target);
    if ('unresolved' in parsed) {
      throw new SandboxUnavailableError(
        'unsupported_launcher',
        `${who} runs in a sandbox, where npx cannot fetch it: ${parsed.unresolved}. Install the package and start it with its own command, e.g. "node <its entry file>".`,
        options.server,
      );
    }
    const resolved = resolveNpxCommand(target, {
      searchFrom: options.searchFrom ?? [base],
      cacheDir: options.cacheDir ?? defaultNpxCacheDir(home),
    });
    if ('unresolved' in resolved) {
      const config = options.config ?? '<config file>';
      throw new SandboxUnavailableError(
        'package_not_installed',
        `${who} runs in a sandbox, and ${resolved.unresolved}. Inside the sandbox there is no network and no npm cache, so the package must be installed first: run "toolpact gateway check --config ${config} --install", or "npm install -g ${parsed.spec}". It was not started.`,
        options.server,
      );
    }
    const packages = [resolved.packageDir, ...nodeModulesAbove(resolved.packageDir)];
    return {
      command: resolved.command,
      args: resolved.args,
      runtimes: [installRoot(realpathSync(resolved.command), home)],
      packages,
    };
  }
  if (launcher !== undefined) {
    throw new SandboxUnavailableError(
      'unsupported_launcher',
      `${who} starts with ${launcher}, which fetches its package when it starts; inside the sandbox there is no network to fetch it. Install the server and start it with its own command (e.g. "node <its entry file>").`,
      options.server,
    );
  }
  const found = target.command.includes('/')
    ? resolve(base, target.command)
    : findOnPath(target.command, pathVariable);
  if (found === undefined || !isExecutableFile(found)) {
    throw new SandboxUnavailableError(
      'command_not_found',
      `${who} runs "${target.command}", which is ${target.command.includes('/') ? 'not an executable file' : 'not on PATH'}; it was not started. Give the full path of the command.`,
      options.server,
    );
  }
  const command = realpathSync(found);
  const args = [...target.args];
  const runtimes: string[] = [];
  const packages: string[] = [];
  const addScript = (script: string) => {
    const root = packageRoot(script, home);
    packages.push(root, ...nodeModulesAbove(root));
  };
  const interpreter = shebangOf(command);
  if (interpreter !== undefined) {
    // A script run as a command (a package's bin): the script is the package, its interpreter the runtime.
    addScript(command);
    const words = interpreter.split(/\s+/).filter((word) => word !== '');
    const program =
      basename(words[0] ?? '') === 'env' ? words.find((word, i) => i > 0 && !word.startsWith('-')) : words[0];
    const runtime =
      program === undefined ? undefined : program.includes('/') ? program : findOnPath(program, pathVariable);
    if (runtime !== undefined && existsSync(runtime)) runtimes.push(installRoot(realpathSync(runtime), home));
  } else {
    runtimes.push(installRoot(command, home));
    const index = /^node(js)?$/.test(basename(command)) ? nodeScriptIndex(args) : firstFileIndex(args, base);
    const script = index === undefined ? undefined : resolve(base, args[index]!);
    if (index !== undefined && script !== undefined && isFile(script)) {
      const real = realpathSync(script);
      // By its real path, which is where it is bound inside whatever the working folder there.
      args[index] = real;
      addScript(real);
    }
  }
  return { command, args, runtimes, packages };
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

/**
 * The folder of the package a script belongs to: the nearest folder above it with a `package.json`
 * that names a package (a nameless one, such as `dist/package.json` giving only `type`, is passed
 * over), else the nearest with any `package.json` or a `pyproject.toml`, else the script's folder.
 * Never the home folder or the root: there only the script itself is given.
 */
function packageRoot(script: string, home: string): string {
  let nearest: string | undefined;
  for (let dir = dirname(script); !tooBroad(dir, home); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (isFile(manifest)) {
      if (hasName(manifest)) return dir;
      nearest ??= dir;
    } else if (isFile(join(dir, 'pyproject.toml'))) {
      nearest ??= dir;
    }
    if (dirname(dir) === dir) break;
  }
  if (nearest !== undefined) return nearest;
  return tooBroad(dirname(script), home) ? script : dirname(script);
}

/** Every `node_modules` folder in the folders above `dir`, where node looks for its dependencies. */
function nodeModulesAbove(dir: string): string[] {
  const found: string[] = [];
  for (let current = dirname(dir); ; current = dirname(current)) {
    const candidate = join(current, 'node_modules');
    if (basename(current) !== 'node_modules' && isDirectory(candidate)) found.push(realpathSync(candidate));
    if (dirname(current) === current) break;
  }
  return found;
}

/**
 * The installation a program belongs to: for `<root>/bin/<program>`, `<root>` (a node installation
 * holds its `lib/node_modules` there), else the program's folder; never the home folder or `/`.
 */
function installRoot(program: string, home: string): string {
  const dir = dirname(program);
  const root = basename(dir) === 'bin' ? dirname(dir) : dir;
  if (!tooBroad(root, home)) return root;
  return tooBroad(dir, home) ? program : dir;
}

function nodeScriptIndex(args: readonly string[]): number | undefined {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') return index + 1 < args.length ? index + 1 : undefined;
    if (NODE_NO_SCRIPT.has(arg)) return undefined;
    if (NODE_VALUE_OPTIONS.has(arg)) index++;
    else if (!arg.startsWith('-')) return index;
  }
  return undefined;
}

/** For another interpreter (python, deno…): its first argument that names a file. */
function firstFileIndex(args: readonly string[], base: string): number | undefined {
  const index = args.findIndex((arg) => !arg.startsWith('-') && isFile(resolve(base, arg)));
  return index >= 0 ? index : undefined;
}

function hasName(manifest: string): boolean {
  try {
    const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown };
    return typeof parsed.name === 'string' && parsed.name !== '';
  } catch {
    return false;
  }
}

/** `/`, the home folder or a folder above it: too much to give a server for its package or runtime. */
function tooBroad(dir: string, home: string): boolean {
  return dir === '/' || isWithin(home, dir);
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

function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

function byLength(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
