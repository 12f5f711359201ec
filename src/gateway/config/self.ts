import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { StdioTarget } from './types.js';
import { expandHome } from './variables.js';

/**
 * Whether a stdio entry would start this same gateway: its command line runs toolpact (`toolpact`,
 * `toolpact.js`, `toolpact@<version>` through npx, or a path ending in `bin/toolpact.js`), then `gateway`,
 * with a `--config <file>` or `--config=<file>` that resolves to `configFile`. Relative config paths are
 * tried against the entry's `cwd`, else against the config's folder and the current folder. Returns the
 * `--config` value when it does, so the reason can quote it; a gateway with another config is not this one.
 *
 * @example
 * startsThisGateway({ kind: 'stdio', command: 'npx', args: ['-y', 'toolpact', 'gateway', '--config', 'mcp.json'], env: {} },
 *   '/home/me/project/mcp.json', '/home/me'); // 'mcp.json'
 */
export function startsThisGateway(target: StdioTarget, configFile: string, home: string): string | undefined {
  const words = [target.command, ...target.args];
  const runner = words.findIndex(isToolpact);
  if (runner < 0) return undefined;
  const gateway = words.indexOf('gateway', runner + 1);
  if (gateway < 0) return undefined;
  const config = configArgument(words.slice(gateway + 1));
  if (config === undefined) return undefined;
  const self = realPath(configFile);
  const expanded = expandHome(config, home);
  const bases = target.cwd !== undefined ? [target.cwd] : [resolve(configFile, '..'), process.cwd()];
  return bases.some((base) => realPath(resolve(base, expanded)) === self) ? config : undefined;
}

function isToolpact(word: string): boolean {
  const name = word.split(/[\\/]/).pop() ?? '';
  return (
    name === 'toolpact' ||
    name === 'toolpact.js' ||
    name === 'toolpact.cmd' ||
    name.startsWith('toolpact@') ||
    word.replaceAll('\\', '/').endsWith('bin/toolpact.js')
  );
}

// The value of the last `--config` option (a later option wins on a command line).
function configArgument(words: readonly string[]): string | undefined {
  let value: string | undefined;
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    if (word === '--config' && index + 1 < words.length) value = words[++index];
    else if (word.startsWith('--config=')) value = word.slice('--config='.length);
  }
  return value;
}

function realPath(path: string): string {
  const absolute = resolve(path);
  try {
    return existsSync(absolute) ? realpathSync(absolute) : absolute;
  } catch {
    return absolute;
  }
}
