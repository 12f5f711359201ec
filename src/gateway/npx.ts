import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { findOnPath, shebangOf } from '../util/executables.js';
import { type NpxTarget, parseNpxCommand } from './npx-command.js';

export {
  type NpxInvocation,
  type NpxTarget,
  npxPackageSpec,
  packageLauncher,
  parseNpxCommand,
} from './npx-command.js';

// An `npx -y <package>` server fetches its package when it starts: it needs the network and the npm
// cache, which a sandboxed server has neither of. So before the sandbox starts, the command is
// turned into `node <the package's bin script>` from a copy installed beforehand: in a project's
// node_modules, in the gateway's own cache (`installNpxPackage`), or among npm's global packages.

/** Where {@link resolveNpxCommand} looks for the installed package. */
export interface ResolveNpxOptions {
  /** Folders whose node_modules, and those of every folder above them, may hold the package (e.g. the config's folder). */
  readonly searchFrom: readonly string[];
  /** The gateway's install cache: packages installed there by {@link installNpxPackage} are in `<cacheDir>/node_modules`. */
  readonly cacheDir: string;
}

/**
 * The command an `npx` line resolves to: `node <bin script> [args…]`, with the folder of the package
 * (its `package.json`), or why it could not be resolved.
 */
export type NpxResolution =
  | { readonly command: string; readonly args: string[]; readonly packageDir: string }
  | { readonly unresolved: string };

/**
 * Resolves an `npx -y <package> [args…]` server to `node <the package's bin script> [args…]`, from a
 * copy of the package already installed: in the node_modules of each `searchFrom` folder or of a
 * folder above it, in `<cacheDir>/node_modules`, or among npm's global packages. The bin is the
 * package's `bin` entry named like the package (without its scope), or its only one. A version that
 * is a number (`1.2.3`, `1.2`, `^1.2.0`, `~1.2.0`) must match the installed copy; a tag
 * (`latest`, `next`) takes whatever copy is installed. Nothing is fetched: a package that is not
 * installed is `{ unresolved }`, saying so.
 *
 * @example
 * const resolved = resolveNpxCommand(
 *   { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
 *   { searchFrom: [configDir], cacheDir },
 * );
 * if ('unresolved' in resolved) throw new Error(resolved.unresolved);
 * // resolved: { command: '/usr/bin/node', args: ['…/server-memory/dist/index.js'], packageDir: '…/server-memory' }
 */
export function resolveNpxCommand(target: NpxTarget, options: ResolveNpxOptions): NpxResolution {
  const invocation = parseNpxCommand(target);
  if ('unresolved' in invocation) return invocation;
  const { name, version } = invocation;
  const mismatches: string[] = [];
  for (const root of nodeModulesRoots(options)) {
    const manifestPath = join(root, name, 'package.json');
    let manifest: PackageManifest;
    let packageDir: string;
    try {
      packageDir = realpathSync(dirname(manifestPath));
      manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as PackageManifest;
    } catch {
      continue;
    }
    if (version !== undefined) {
      const fits = versionFits(String(manifest.version ?? ''), version);
      if (fits === 'unknown') {
        return {
          unresolved: `the version "${version}" of ${name} cannot be checked without npm; give an exact version (${name}@1.2.3), a tag, or none`,
        };
      }
      if (!fits) {
        mismatches.push(`${String(manifest.version)} in ${root}`);
        continue;
      }
    }
    const entry = binEntry(manifest, invocation.bin ?? unscoped(name));
    if ('unresolved' in entry) return { unresolved: `${name}: ${entry.unresolved}` };
    let script: string;
    try {
      script = realpathSync(resolve(packageDir, entry.path));
    } catch {
      return {
        unresolved: `${name}'s bin "${entry.name}" names ${entry.path}, which is not in ${packageDir}`,
      };
    }
    const interpreter = shebangOf(script);
    // A bin with a non-node interpreter (sh, python) runs as itself; the usual JavaScript bin runs with node.
    if (interpreter !== undefined && !/\bnode(js)?\b/.test(interpreter)) {
      return { command: script, args: [...invocation.args], packageDir };
    }
    return { command: process.execPath, args: [script, ...invocation.args], packageDir };
  }
  const found = mismatches.length > 0 ? ` (installed: ${mismatches.join(', ')})` : '';
  return {
    unresolved: `${invocation.spec} is not installed${found}; npx would fetch it from the network when it starts`,
  };
}

/**
 * Installs a package into the gateway's install cache, where {@link resolveNpxCommand} finds it:
 * `npm install --prefix <cacheDir> --no-audit --no-fund <spec>`. It needs the network (and runs the
 * package's install scripts, as npx would). Rejects with the exit status and the end of npm's output.
 *
 * @example
 * await installNpxPackage('@modelcontextprotocol/server-memory@latest', cacheDir);
 */
export async function installNpxPackage(
  spec: string,
  cacheDir: string,
  options: { readonly npm?: string; readonly signal?: AbortSignal } = {},
): Promise<void> {
  const parsed = parseNpxCommand({ command: 'npx', args: [spec] });
  if ('unresolved' in parsed || parsed.args.length > 0 || parsed.spec !== spec) {
    throw new Error(
      `"${spec}" cannot be installed into the gateway's cache: ${'unresolved' in parsed ? parsed.unresolved : 'give one package, e.g. "@modelcontextprotocol/server-memory" or "name@1.2.3"'}.`,
    );
  }
  if (!isAbsolute(cacheDir))
    throw new Error(`The install cache must be an absolute path; received "${cacheDir}".`);
  const npm = options.npm ?? findOnPath('npm');
  if (npm === undefined) {
    throw new Error(
      `npm is not on PATH, so ${spec} cannot be installed; install Node.js with npm, or install the package yourself (npm install -g ${spec}).`,
    );
  }
  mkdirSync(cacheDir, { recursive: true });
  const command = ['install', '--prefix', cacheDir, '--no-audit', '--no-fund', spec];
  await new Promise<void>((done, fail) => {
    const child = spawn(npm, command, {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.signal ? { signal: options.signal } : {}),
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => {
      fail(new Error(`npm could not be started to install ${spec}: ${error.message}`, { cause: error }));
    });
    child.on('close', (code, signal) => {
      if (code === 0) {
        done();
        return;
      }
      const tail = output
        .trim()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .slice(-5)
        .join(' | ');
      fail(
        new Error(
          `npm install of ${spec} into ${cacheDir} failed (${signal ? `signal ${signal}` : `exit status ${String(code)}`})${tail ? `: ${tail}` : ''}. Check the package name and the network, then run: npm ${command.join(' ')}`,
        ),
      );
    });
  });
}

/**
 * Where the gateway installs npx packages by default: `$XDG_CACHE_HOME/toolpact/npx`, else
 * `~/.cache/toolpact/npx`.
 *
 * @example
 * defaultNpxCacheDir(); // '/home/ada/.cache/toolpact/npx'
 */
export function defaultNpxCacheDir(home: string = homedir()): string {
  const cache = process.env.XDG_CACHE_HOME;
  return join(cache && isAbsolute(cache) ? cache : join(home, '.cache'), 'toolpact', 'npx');
}

interface PackageManifest {
  readonly name?: unknown;
  readonly version?: unknown;
  readonly bin?: unknown;
}

/** The node_modules folders to look in, in order, each once. */
function nodeModulesRoots(options: ResolveNpxOptions): string[] {
  const roots: string[] = [];
  for (const start of options.searchFrom) {
    let dir = resolve(start);
    for (;;) {
      roots.push(basename(dir) === 'node_modules' ? dir : join(dir, 'node_modules'));
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  roots.push(join(resolve(options.cacheDir), 'node_modules'));
  // npm's global folder: <prefix>/lib/node_modules, the prefix being npm's setting or node's own.
  const prefix = process.env.npm_config_prefix ?? process.env.NPM_CONFIG_PREFIX;
  if (prefix && isAbsolute(prefix)) roots.push(join(prefix, 'lib', 'node_modules'));
  roots.push(join(dirname(dirname(process.execPath)), 'lib', 'node_modules'), '/usr/local/lib/node_modules');
  return [...new Set(roots)];
}

function unscoped(name: string): string {
  return name.startsWith('@') ? name.slice(name.indexOf('/') + 1) : name;
}

/** The bin to run: `bin` as a string, or the entry named `wanted`, or the only entry. */
function binEntry(
  manifest: PackageManifest,
  wanted: string,
): { readonly name: string; readonly path: string } | { readonly unresolved: string } {
  const bin = manifest.bin;
  if (typeof bin === 'string') return { name: wanted, path: bin };
  if (bin === null || typeof bin !== 'object') return { unresolved: 'the package has no "bin" to run' };
  const entries = Object.entries(bin as Record<string, unknown>).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  const named = entries.find(([name]) => name === wanted);
  if (named) return { name: named[0], path: named[1] };
  if (entries.length === 1) return { name: entries[0]![0], path: entries[0]![1] };
  if (entries.length === 0) return { unresolved: 'the package has no "bin" to run' };
  return {
    unresolved: `the package has several bins (${entries.map(([name]) => name).join(', ')}) and none is named "${wanted}"; start it with "npx -p <package> <bin>"`,
  };
}

/**
 * Whether an installed version meets what npx was asked for: `true`/`false` for an exact or partial
 * version (`1.2.3`, `1.2`, `1.x`) or a caret or tilde range; `true` for a tag (`latest`, `next`) or
 * `*`; `unknown` for any other range, which only npm can decide.
 */
function versionFits(installed: string, wanted: string): boolean | 'unknown' {
  const have = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$/.exec(installed);
  const range = wanted.trim();
  if (range === '*' || range === 'x' || range === '') return true;
  // A tag names whichever version the registry points it at; the installed copy stands for it.
  if (/^[A-Za-z][0-9A-Za-z._-]*$/.test(range) && !/^[xX]$/.test(range) && !/^v\d/.test(range)) return true;
  if (!have) return false;
  const version = [Number(have[1]), Number(have[2]), Number(have[3])] as const;
  const prerelease = have[4];
  const match = /^([\^~]|=|v)?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?$/.exec(range);
  if (!match) return 'unknown';
  const operator = match[1] === '=' || match[1] === 'v' ? undefined : match[1];
  const parts = [match[2], match[3], match[4]].map((part) =>
    part === undefined || /^[xX*]$/.test(part) ? undefined : Number(part),
  );
  const [major, minor, patch] = parts;
  const pre = match[5];
  if (pre !== undefined || prerelease !== undefined) {
    // Prereleases only match when asked for exactly.
    return (
      operator === undefined &&
      pre === prerelease &&
      version[0] === major &&
      version[1] === minor &&
      version[2] === patch
    );
  }
  if (operator === undefined) {
    return (
      version[0] === major &&
      (minor === undefined || version[1] === minor) &&
      (patch === undefined || version[2] === patch)
    );
  }
  const atLeast = compare(version, [major ?? 0, minor ?? 0, patch ?? 0]) >= 0;
  if (!atLeast || version[0] !== major) return false;
  if (operator === '~') return minor === undefined || version[1] === minor;
  // ^: the left-most non-zero part is fixed.
  if (major !== 0) return true;
  if (minor === undefined) return true;
  if (minor !== 0) return version[1] === minor;
  return version[1] === 0 && (patch === undefined || version[2] === patch);
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < 3; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
