// How a host's config runs a server with npx (or a like launcher): the line taken apart, nothing run.

import { basename } from 'node:path';

/** The command of a server, as a host's config gives it. */
export interface NpxTarget {
  readonly command: string;
  readonly args: readonly string[];
}

/** One `npx` line taken apart: the package to run, the bin to run from it, and the arguments for it. */
export interface NpxInvocation {
  /** The package as written, e.g. `@playwright/mcp@latest`. */
  readonly spec: string;
  /** The package name, e.g. `@playwright/mcp`. */
  readonly name: string;
  /** The version, range or tag after the name (`latest`, `1.2.3`, `^1.2`), if any. */
  readonly version?: string;
  /** The bin named with `--package <spec> <bin>`; otherwise the package's own bin is run. */
  readonly bin?: string;
  /** The arguments after the package (or the bin), passed to the server. */
  readonly args: readonly string[];
}

// npx options that only say how to install; the package and its arguments follow them.
const NPX_FLAGS = new Set([
  '-y',
  '--yes',
  '-q',
  '--quiet',
  '--silent',
  '--prefer-offline',
  '--prefer-online',
]);
// Launchers that fetch a package at start like npx, but whose packages this module does not resolve.
const OTHER_LAUNCHERS: { readonly [command: string]: string | { readonly [subcommand: string]: string } } = {
  bunx: 'bunx',
  uvx: 'uvx',
  pnpx: 'pnpx',
  pnpm: { dlx: 'pnpm dlx', exec: 'pnpm exec' },
  yarn: { dlx: 'yarn dlx' },
  bun: { x: 'bun x' },
  pipx: { run: 'pipx run' },
  uv: { tool: 'uv tool run' },
  npm: { exec: 'npm exec', x: 'npm exec' },
};
// The npm package-name rules (lowercase, URL-safe, an optional scope); anything else (a git URL, a
// tarball, a local folder, an `npm:` alias) is not a registry package.
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9~][a-z0-9._~-]*$/;

/**
 * The launcher a server's command uses to fetch a package when it starts: `npx`, `pnpm dlx`, `bunx`,
 * `uvx`…, or `undefined` for a command that runs something already on the disk.
 *
 * @example
 * packageLauncher({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }); // 'npx'
 * packageLauncher({ command: 'pnpm', args: ['dlx', 'some-server'] }); // 'pnpm dlx'
 * packageLauncher({ command: 'node', args: ['server.js'] }); // undefined
 */
export function packageLauncher(target: NpxTarget): string | undefined {
  const program = basename(target.command);
  if (program === 'npx') return 'npx';
  const launcher = OTHER_LAUNCHERS[program];
  if (typeof launcher === 'string') return launcher;
  const subcommand = target.args[0];
  if (launcher && subcommand !== undefined && Object.hasOwn(launcher, subcommand))
    return launcher[subcommand];
  return undefined;
}

/**
 * Takes an `npx` line apart: `npx [-y|--yes] <package>[@version] [args…]` or
 * `npx [-y] (-p|--package) <package>[@version] <bin> [args…]`. Anything else (another option before
 * the package, several packages, a package that is not from the registry) is `{ unresolved }` with
 * the reason.
 *
 * @example
 * parseNpxCommand({ command: 'npx', args: ['-y', '@playwright/mcp@latest', '--headless'] });
 * // { spec: '@playwright/mcp@latest', name: '@playwright/mcp', version: 'latest', args: ['--headless'] }
 */
export function parseNpxCommand(target: NpxTarget): NpxInvocation | { readonly unresolved: string } {
  const launcher = packageLauncher(target);
  if (launcher !== 'npx') {
    return {
      unresolved:
        launcher === undefined
          ? `"${target.command}" is not npx`
          : `packages started with ${launcher} are not resolved; install the server and start it with its own command (e.g. "node <its entry file>")`,
    };
  }
  const args = target.args;
  let index = 0;
  const packages: string[] = [];
  while (index < args.length) {
    const arg = args[index]!;
    if (NPX_FLAGS.has(arg)) {
      index++;
    } else if (arg === '-p' || arg === '--package') {
      const value = args[index + 1];
      if (value === undefined) return { unresolved: `npx's "${arg}" is not followed by a package` };
      packages.push(value);
      index += 2;
    } else if (arg.startsWith('--package=')) {
      packages.push(arg.slice('--package='.length));
      index++;
    } else if (arg === '--') {
      index++;
      break;
    } else if (arg.startsWith('-')) {
      return {
        unresolved: `the npx option "${arg}" is not understood here; only -y/--yes and -p/--package are`,
      };
    } else {
      break;
    }
  }
  const positional = args[index];
  if (packages.length > 1) return { unresolved: 'npx is given more than one --package' };
  if (positional === undefined) {
    return {
      unresolved:
        packages.length === 1
          ? 'npx is given --package but not the command to run from it'
          : 'npx names no package',
    };
  }
  const spec = packages[0] ?? positional;
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  const name = at > 0 ? spec.slice(0, at) : spec;
  const version = at > 0 ? spec.slice(at + 1) : undefined;
  if (!PACKAGE_NAME.test(name) || version === '') {
    return {
      unresolved: `"${spec}" is not a package from the npm registry (a git URL, a tarball, a folder or an alias is not resolved)`,
    };
  }
  return {
    spec,
    name,
    ...(version !== undefined ? { version } : {}),
    ...(packages.length === 1 ? { bin: positional } : {}),
    args: args.slice(index + 1),
  };
}

/**
 * The package an `npx` server runs (`@playwright/mcp@latest`), for installing it beforehand; or
 * `undefined` for a command that is not npx, or an npx line that cannot be resolved.
 *
 * @example
 * npxPackageSpec({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }); // '@modelcontextprotocol/server-memory'
 */
export function npxPackageSpec(target: NpxTarget): string | undefined {
  const parsed = parseNpxCommand(target);
  return 'unresolved' in parsed ? undefined : parsed.spec;
}
