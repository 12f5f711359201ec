/**
 * A cache of what the TypeScript hooks compiled, on disk, so a module (and every project file it
 * imports) is compiled once per content rather than once per process: a CLI command on a module that
 * imports a hundred files reads a hundred small files instead of starting the compiler.
 *
 * Entries are named by a hash of what the output depends on (the cache's format, the compiler's
 * version, the file's path and its text), so an edited file is a new entry and a stale one is never
 * read. The folder is the user's own (`$TOOLPACT_CACHE_DIR`, else `toolpact-typescript-<uid>` in the
 * system's temporary folder) and is used only when this user owns it and nobody else can write to it:
 * what it holds runs as code. `TOOLPACT_CACHE_DIR=off` turns it off. Nothing here ever fails a load:
 * a cache that cannot be read or written is a compile.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Changes when what the hooks write for the same input changes. */
const FORMAT = '1';
/** Entries not written for this long are removed, at most once a day. */
const KEEP_MS = 30 * 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 24 * 60 * 60 * 1000;

/** The variable that names the folder, or turns the cache off (`off`). */
export const CACHE_VARIABLE = 'TOOLPACT_CACHE_DIR';

let folder: string | null | undefined;
let compilerVersion: string | undefined;

/** The output cached for this file's text, if there is one. */
export function cachedOutput(filename: string, source: string): string | undefined {
  const dir = cacheFolder();
  if (!dir) return undefined;
  try {
    return readFileSync(join(dir, entryName(filename, source)), 'utf8');
  } catch {
    return undefined;
  }
}

/** Keeps `output` as what this file's text compiles to. Written whole or not at all (a rename). */
export function keepOutput(filename: string, source: string, output: string): void {
  const dir = cacheFolder();
  if (!dir) return;
  const name = entryName(filename, source);
  const partial = join(dir, `${name}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`);
  try {
    const fd = openSync(partial, 'wx', 0o600);
    try {
      writeSync(fd, output);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, join(dir, name));
  } catch {
    rmSync(partial, { force: true });
  }
  pruneOnceADay(dir);
}

function entryName(filename: string, source: string): string {
  compilerVersion ??= versionOf('@swc/wasm-typescript');
  return `${createHash('sha256')
    .update(`${FORMAT}\0${compilerVersion}\0${filename}\0`)
    .update(source)
    .digest('hex')}.mjs`;
}

/**
 * The folder, created if missing, when it is safe to run what it holds: a real directory (not a
 * link) owned by this user, that no other user can write to. Otherwise null: no cache.
 */
export function cacheFolder(): string | null {
  if (folder !== undefined) return folder;
  const chosen = process.env[CACHE_VARIABLE];
  if (chosen === 'off' || chosen === '0') {
    folder = null;
    return folder;
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const dir = chosen || join(tmpdir(), `toolpact-typescript-${uid ?? 'user'}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(dir);
    const owned = uid === undefined || stat.uid === uid;
    folder = stat.isDirectory() && owned && (stat.mode & 0o022) === 0 ? dir : null;
  } catch {
    folder = null;
  }
  return folder;
}

function pruneOnceADay(dir: string): void {
  const mark = join(dir, 'pruned');
  const now = Date.now();
  try {
    if (now - statSync(mark).mtimeMs < PRUNE_EVERY_MS) return;
  } catch {
    // Never pruned.
  }
  try {
    closeSync(openSync(mark, 'a', 0o600));
    utimesSync(mark, now / 1000, now / 1000);
    for (const entry of readdirSync(dir)) {
      if (entry === 'pruned') continue;
      const path = join(dir, entry);
      if (now - statSync(path).mtimeMs > KEEP_MS) rmSync(path, { force: true });
    }
  } catch {
    // Another process pruned, or the folder went away: the next write tries again.
  }
}

function versionOf(name: string): string {
  try {
    return (createRequire(import.meta.url)(`${name}/package.json`) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
