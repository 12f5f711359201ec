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
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Changes when what the hooks write for the same input changes. */
const FORMAT = '1';
/** Entries not written for this long are removed, at most once a day. */
const KEEP_MS = 30 * 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 24 * 60 * 60 * 1000;

/** The variable that names the folder, or turns the cache off (`off`). */
const CACHE_VARIABLE = 'TOOLPACT_CACHE_DIR';

let folder: string | null | undefined;
let compilerVersion: string | undefined;
/** Whether this process has looked at the prune mark already: once is enough. */
let pruneLooked = false;

/**
 * The cache file of this file's text (named by a hash of it, its path, the compiler's version and the
 * cache's format), or undefined when there is no cache.
 */
export function cacheEntry(filename: string, source: string): string | undefined {
  const dir = cacheFolder();
  if (!dir) return undefined;
  compilerVersion ??= versionOf('@swc/wasm-typescript');
  const hash = createHash('sha256')
    .update(`${FORMAT}\0${compilerVersion}\0${filename}\0`)
    .update(source)
    .digest('hex');
  return join(dir, `${hash}.mjs`);
}

/** The output an entry holds, if it was written. */
export function readEntry(entry: string): string | undefined {
  try {
    return readFileSync(entry, 'utf8');
  } catch {
    return undefined;
  }
}

/** Writes `output` to an entry, whole or not at all (a rename). */
export function writeEntry(entry: string, output: string): void {
  const partial = `${entry}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
  try {
    writeFileSync(partial, output, { flag: 'wx', mode: 0o600 });
    renameSync(partial, entry);
  } catch {
    rmSync(partial, { force: true });
  }
  pruneOnceADay(dirname(entry));
}

/**
 * The folder, created if missing, when it is safe to run what it holds: a real directory (not a
 * link) owned by this user, that no other user can write to. Otherwise null: no cache.
 */
function cacheFolder(): string | null {
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
  if (pruneLooked) return;
  pruneLooked = true;
  const mark = join(dir, 'pruned');
  const now = Date.now();
  try {
    if (now - statSync(mark).mtimeMs < PRUNE_EVERY_MS) return;
  } catch {
    // Never pruned.
  }
  try {
    writeFileSync(mark, '', { mode: 0o600 });
    for (const entry of readdirSync(dir)) {
      if (entry === 'pruned') continue;
      const path = join(dir, entry);
      if (now - statSync(path).mtimeMs > KEEP_MS) rmSync(path, { force: true });
    }
  } catch {
    // Another process pruned, or the folder went away: a later process tries again.
  }
}

function versionOf(name: string): string {
  try {
    return (createRequire(import.meta.url)(`${name}/package.json`) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
