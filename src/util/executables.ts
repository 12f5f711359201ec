import { accessSync, closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Whether `path` is a regular file this process may execute.
 *
 * @example
 * isExecutableFile('/usr/bin/bwrap'); // true where bubblewrap is installed
 */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The first executable named `program` in the folders of `path` (default: this process's `PATH`,
 * else `/usr/bin:/bin`), or undefined.
 *
 * @example
 * findOnPath('npm'); // '/usr/bin/npm'
 */
export function findOnPath(program: string, path: string | undefined = process.env.PATH): string | undefined {
  for (const dir of (path ?? '/usr/bin:/bin').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, program);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The interpreter line of a script (`#!/usr/bin/env node` → `/usr/bin/env node`), if it has one.
 *
 * @example
 * shebangOf('node_modules/.bin/mcp-server-memory'); // '/usr/bin/env node'
 */
export function shebangOf(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(256);
    const length = readSync(fd, head, 0, head.length, 0);
    const text = head.subarray(0, length).toString('utf8');
    return text.startsWith('#!') ? text.slice(2).split('\n')[0]!.trim() : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
