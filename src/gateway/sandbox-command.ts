import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { isSharedFolder, isWithin } from '../sandbox/shared-folders.js';
import { findOnPath, isExecutableFile, shebangOf } from '../util/executables.js';
import { defaultNpxCacheDir, packageLauncher, parseNpxCommand, resolveNpxCommand } from './npx.js';
import { SandboxUnavailableError } from './sandbox-error.js';

// What a sandboxed server needs to start, found before anything starts: the command (an `npx -y`
// line resolved to its installed package), the runtime it runs on and its package folder, never a
// folder shared with other programs (src/sandbox/shared-folders.ts).

/** The server's own command, as the host's config gives it. */
export interface SandboxServerTarget {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: { readonly [name: string]: string };
  readonly cwd?: string;
}

/** Options of `sandboxedCommand`. */
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

/** The command to run inside, the runtimes it needs and its package folders, all real paths. */
export function resolveServerCommand(
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
    if (typeof root !== 'string') {
      throw new SandboxUnavailableError(
        'shared_package_folder',
        `${who} runs "${script}", whose package (its package.json) is the whole of "${root.shared}", a folder shared with other programs; the sandbox shows a server its own package folder only, so it was not started. Move the package into a folder of its own (e.g. "${join(root.shared, '<package>')}") and start it from there.`,
        options.server,
      );
    }
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

/**
 * The folder of the package a script belongs to: the nearest folder above it with a `package.json`
 * that names a package (a nameless one, such as `dist/package.json` giving only `type`, is passed
 * over), else the nearest with any `package.json` or a `pyproject.toml`, else the script's folder.
 * Never a shared folder (see {@link isSharedFolder}): a script lying loose in one is given alone,
 * and a package whose own folder is one is `{ shared }`, refused by the caller (given in part, it
 * would fail to start for want of its own files).
 */
function packageRoot(script: string, home: string): string | { readonly shared: string } {
  let nearest: string | undefined;
  for (let dir = dirname(script); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (isSharedFolder(dir, home)) {
      if (nearest === undefined && isFile(manifest) && hasName(manifest)) return { shared: dir };
      break;
    }
    if (isFile(manifest)) {
      if (hasName(manifest)) return dir;
      nearest ??= dir;
    } else if (isFile(join(dir, 'pyproject.toml'))) {
      nearest ??= dir;
    }
  }
  if (nearest !== undefined) return nearest;
  return isSharedFolder(dirname(script), home) ? script : dirname(script);
}

/**
 * Every `node_modules` folder node looks in for the package in `dir`'s dependencies: those in the
 * folders above it, and its own when that is a link to somewhere else (a workspace or a linked
 * install), each by its real path.
 */
function nodeModulesAbove(dir: string): string[] {
  const found: string[] = [];
  const own = join(dir, 'node_modules');
  if (isDirectory(own) && !isWithin(realpathSync(own), dir)) found.push(realpathSync(own));
  for (let current = dirname(dir); ; current = dirname(current)) {
    const candidate = join(current, 'node_modules');
    if (basename(current) !== 'node_modules' && isDirectory(candidate)) found.push(realpathSync(candidate));
    if (dirname(current) === current) break;
  }
  return found;
}

/**
 * The installation a program belongs to: for `<root>/bin/<program>`, `<root>` (a node installation
 * holds its `lib/node_modules` there), else the program's folder; never a shared folder.
 */
function installRoot(program: string, home: string): string {
  const dir = dirname(program);
  const root = basename(dir) === 'bin' ? dirname(dir) : dir;
  if (!isSharedFolder(root, home)) return root;
  return isSharedFolder(dir, home) ? program : dir;
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

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Whether `path` is an existing folder (following links). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
