import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { WIDE_TOOL_NAME_PATTERN } from '../contract/index.js';
import { jsonErrorPosition } from '../dispatch/json-error-position.js';
import { canonicalJson } from '../util/digest.js';
import { CATALOG_KINDS } from './catalog.js';
import type { GatewayLock, LockedDefinition, LockedServer, LockedText, LockedTool } from './lock.js';
import { record } from './lock.js';
import { cap, visible } from './terminal-text.js';

/** Why a lock file was refused. */
export type LockFileErrorCode = 'unreadable_file' | 'invalid_json' | 'invalid_lock';

/**
 * A lock file that cannot be read or is not a lock. The message names the file, says where it is
 * wrong (line and column for JSON that does not parse, the JSON path for a wrong shape), what is
 * allowed there, and what to do.
 *
 * @example
 * try {
 *   readLock('toolpact.lock.json');
 * } catch (error) {
 *   if (error instanceof LockFileError) console.error(error.message); // ... line 4, column 7 ...
 * }
 */
export class LockFileError extends Error {
  override readonly name = 'LockFileError';
  readonly code: LockFileErrorCode;
  readonly file: string;
  /** 1-based line of a JSON syntax error. */
  readonly line: number | undefined;
  /** 1-based column of a JSON syntax error. */
  readonly column: number | undefined;
  /** JSON path of the wrong value, e.g. `$.servers.github.tools.search.digest`. */
  readonly path: string | undefined;

  constructor(
    code: LockFileErrorCode,
    file: string,
    message: string,
    where: { line?: number; column?: number; path?: string } = {},
    options?: { cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.file = file;
    this.line = where.line;
    this.column = where.column;
    this.path = where.path;
  }
}

const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
const REPAIR = 'Fix it, or delete it and run `toolpact gateway pin` to record the current tool definitions.';

/**
 * Reads and checks a lock file; undefined when the file does not exist (the gateway's first start).
 * Anything else that is wrong throws a {@link LockFileError}: a file that cannot be read, JSON that
 * does not parse (with line and column), or a value that is not a lock (with its JSON path and what
 * is allowed there).
 *
 * @example
 * const lock = readLock('gateway.lock.json') ?? { version: 1, servers: {} };
 */
export function readLock(file: string): GatewayLock | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new LockFileError(
      'unreadable_file',
      file,
      `The lock file ${file} cannot be read (${code ?? 'unknown error'}). Check that it is a file you may read, or give another path with --lock.`,
      {},
      { cause: error },
    );
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const { position, detail } = jsonErrorPosition(text);
    const { line, column } = lineAndColumn(text, position);
    throw new LockFileError(
      'invalid_json',
      file,
      `The lock file ${file} is not valid JSON: line ${line}, column ${column}: ${detail}. ${REPAIR}`,
      { line, column },
    );
  }
  return checkLock(value, file);
}

/**
 * Writes the lock atomically: to a temporary file beside it, flushed, then renamed over it, so a
 * reader sees the old lock or the new one, never half of one. Pretty JSON with server and tool names
 * sorted and a final newline, so the lock's diffs in version control show only what changed. Missing
 * directories are created; a symbolic link is followed and its target replaced. A lock that
 * {@link readLock} would refuse throws a {@link LockFileError} and writes nothing.
 *
 * @example
 * writeLock('gateway.lock.json', pinServer(readLock('gateway.lock.json'), 'memory', listed, 'legacy'));
 */
export function writeLock(file: string, lock: GatewayLock): void {
  checkLock(lock, file);
  const text = `${JSON.stringify(ordered(lock), null, 2)}\n`;
  let target = file;
  try {
    target = realpathSync(file);
  } catch {
    // Not there yet (or a dangling link): write the path as given.
  }
  const directory = dirname(target);
  mkdirSync(directory, { recursive: true });
  const temporary = join(
    directory,
    `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    const descriptor = openSync(temporary, 'wx', 0o644);
    try {
      writeSync(descriptor, text);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    throw new LockFileError(
      'unreadable_file',
      file,
      `The lock file ${file} cannot be written (${code ?? 'unknown error'}). Check that its directory is writable, or give another path with --lock.`,
      {},
      { cause: error },
    );
  }
}

function lineAndColumn(text: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < position; index++) {
    if (text.charCodeAt(index) === 10) {
      line++;
      lineStart = index + 1;
    }
  }
  return { line, column: position - lineStart + 1 };
}

function pathOf(path: readonly string[]): string {
  return `$${path.map((key) => (/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`)).join('')}`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return cap(visible(JSON.stringify(value)), 60);
  return String(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks a parsed lock and returns a copy built of prototype-free records. */
function checkLock(value: unknown, file: string): GatewayLock {
  const wrong = (path: readonly string[], found: unknown, allowed: string): never => {
    const where = pathOf(path);
    throw new LockFileError(
      'invalid_lock',
      file,
      `The lock file ${file} is not a valid lock: ${where} is ${describeValue(found)}; ${allowed}. ${REPAIR}`,
      { path: where },
    );
  };
  const only = (object: Record<string, unknown>, path: readonly string[], keys: readonly string[]) => {
    for (const key of Object.keys(object))
      if (!keys.includes(key))
        wrong(
          [...path, key],
          object[key],
          `the keys allowed here are ${keys.map((k) => `"${k}"`).join(', ')}`,
        );
  };

  if (!isObject(value)) return wrong([], value, 'expected an object { "version": 1, "servers": { ... } }');
  only(value, [], ['version', 'servers']);
  if (value.version !== 1)
    wrong(['version'], value.version, 'expected 1, the only lock version this toolpact reads');
  if (!isObject(value.servers)) wrong(['servers'], value.servers, 'expected an object of servers by name');
  const servers = record<LockedServer>();
  // Each served name has one owner: a second is a lock edited by hand, refused rather than guessed.
  const owners = new Map<string, string>();
  const promptOwners = new Map<string, string>();
  for (const [name, server] of Object.entries(value.servers as Record<string, unknown>)) {
    const at = ['servers', name];
    if (!isObject(server)) wrong(at, server, 'expected an object { "era"?, "prior"?, "tools": { ... } }');
    const entry = server as Record<string, unknown>;
    only(entry, at, ['era', 'prior', 'tools', ...CATALOG_KINDS]);
    if (entry.era !== undefined && entry.era !== 'modern' && entry.era !== 'legacy')
      wrong([...at, 'era'], entry.era, 'expected "modern" or "legacy"');
    if (entry.prior !== undefined && !(isObject(entry.prior) && typeof entry.prior.kind === 'string'))
      wrong(
        [...at, 'prior'],
        entry.prior,
        'expected an object with a string "kind" (the SDK\'s era verdict)',
      );
    if (!isObject(entry.tools)) wrong([...at, 'tools'], entry.tools, 'expected an object of tools by name');
    const tools = record<LockedTool>();
    for (const [toolName, tool] of Object.entries(entry.tools as Record<string, unknown>)) {
      const toolAt = [...at, 'tools', toolName];
      if (!isObject(tool)) wrong(toolAt, tool, 'expected an object { "digest", "description" }');
      const locked = tool as Record<string, unknown>;
      only(locked, toolAt, ['digest', 'description', 'name', 'definition']);
      if (typeof locked.digest !== 'string' || !DIGEST_PATTERN.test(locked.digest))
        wrong([...toolAt, 'digest'], locked.digest, 'expected "sha256:" followed by 64 lowercase hex digits');
      if (typeof locked.description !== 'string')
        wrong([...toolAt, 'description'], locked.description, 'expected a string (empty when there is none)');
      const owned = checkOwnedName(locked.name, [...toolAt, 'name'], owners, `${name}/${toolName}`, wrong);
      const definition = locked.definition;
      if (definition !== undefined) {
        const definitionAt = [...toolAt, 'definition'];
        if (!isObject(definition)) wrong(definitionAt, definition, 'expected an object { "inputSchema", … }');
        const fields = definition as Record<string, unknown>;
        only(fields, definitionAt, ['title', 'inputSchema', 'outputSchema', 'annotations']);
        if (!isObject(fields.inputSchema))
          wrong([...definitionAt, 'inputSchema'], fields.inputSchema, 'expected the JSON Schema object');
        if (fields.title !== undefined && typeof fields.title !== 'string')
          wrong([...definitionAt, 'title'], fields.title, 'expected a string');
      }
      tools[toolName] = {
        digest: locked.digest as string,
        description: locked.description as string,
        ...(owned === undefined ? {} : { name: owned }),
        ...(definition === undefined ? {} : { definition: definition as unknown as LockedDefinition }),
      };
    }
    servers[name] = {
      ...(entry.era === undefined ? {} : { era: entry.era as 'modern' | 'legacy' }),
      ...(entry.prior === undefined ? {} : { prior: entry.prior }),
      tools,
      ...checkCatalog(entry, at, promptOwners, wrong, only),
    };
  }
  return { version: 1, servers };
}

/**
 * A server's pinned resources, templates and prompts (each section optional: older locks have none).
 * Only a prompt has a served name, owned among prompts as a tool's is among tools.
 */
function checkCatalog(
  entry: Record<string, unknown>,
  at: readonly string[],
  promptOwners: Map<string, string>,
  wrong: (path: readonly string[], found: unknown, allowed: string) => never,
  only: (object: Record<string, unknown>, path: readonly string[], keys: readonly string[]) => void,
): Pick<LockedServer, 'resources' | 'templates' | 'prompts'> {
  const sections: { -readonly [Kind in (typeof CATALOG_KINDS)[number]]?: Record<string, LockedText> } = {};
  for (const kind of CATALOG_KINDS) {
    const section = entry[kind];
    if (section === undefined) continue;
    const sectionAt = [...at, kind];
    if (!isObject(section)) wrong(sectionAt, section, `expected an object of pinned ${kind} by key`);
    const items = record<LockedText>();
    for (const [key, item] of Object.entries(section as Record<string, unknown>)) {
      const itemAt = [...sectionAt, key];
      if (!isObject(item)) wrong(itemAt, item, 'expected an object { "digest", "description" }');
      const locked = item as Record<string, unknown>;
      only(
        locked,
        itemAt,
        kind === 'prompts' ? ['digest', 'description', 'name'] : ['digest', 'description'],
      );
      if (typeof locked.digest !== 'string' || !DIGEST_PATTERN.test(locked.digest))
        wrong([...itemAt, 'digest'], locked.digest, 'expected "sha256:" followed by 64 lowercase hex digits');
      if (typeof locked.description !== 'string')
        wrong([...itemAt, 'description'], locked.description, 'expected a string (empty when there is none)');
      const owned =
        kind === 'prompts'
          ? checkOwnedName(locked.name, [...itemAt, 'name'], promptOwners, `${at[1]}/${key}`, wrong, 'prompt')
          : undefined;
      items[key] = {
        digest: locked.digest as string,
        description: locked.description as string,
        ...(owned === undefined ? {} : { name: owned }),
      };
    }
    sections[kind] = items;
  }
  return sections;
}

/** The lock as it is written: fixed key order, servers and tools sorted by name, `prior`'s keys sorted. */
function ordered(lock: GatewayLock): unknown {
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const servers = record<unknown>();
  for (const name of Object.keys(lock.servers).sort(byName)) {
    const server = lock.servers[name]!;
    const tools = record<unknown>();
    for (const tool of Object.keys(server.tools).sort(byName)) {
      const entry = server.tools[tool]!;
      tools[tool] = {
        digest: entry.digest,
        description: entry.description,
        ...(entry.name === undefined ? {} : { name: entry.name }),
        ...(entry.definition === undefined
          ? {}
          : { definition: JSON.parse(canonicalJson(entry.definition)) as unknown }),
      };
    }
    servers[name] = {
      ...(server.era === undefined ? {} : { era: server.era }),
      ...(server.prior === undefined ? {} : { prior: JSON.parse(canonicalJson(server.prior)) as unknown }),
      tools,
      ...orderedCatalog(server),
    };
  }
  return { version: 1, servers };
}

/** A server's pinned resources, templates and prompts, each section sorted by key, each entry in fixed key order. */
function orderedCatalog(server: LockedServer): Record<string, unknown> {
  const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const sections = record<unknown>();
  for (const kind of CATALOG_KINDS) {
    const section = server[kind];
    if (!section) continue;
    const items = record<unknown>();
    for (const key of Object.keys(section).sort(byKey)) {
      const item = section[key]!;
      items[key] = {
        digest: item.digest,
        description: item.description,
        ...(item.name === undefined ? {} : { name: item.name }),
      };
    }
    sections[kind] = items;
  }
  return sections;
}

/** A tool's owned name: a tool name (1 to 128 of A-Z a-z 0-9 _ - .) that no other tool of the lock owns. */
function checkOwnedName(
  value: unknown,
  path: readonly string[],
  owners: Map<string, string>,
  owner: string,
  wrong: (path: readonly string[], found: unknown, allowed: string) => never,
  what: 'tool' | 'prompt' = 'tool',
): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !WIDE_TOOL_NAME_PATTERN.test(value)) {
    wrong(
      path,
      value,
      `expected the name the gateway serves the ${what} under (1 to 128 of A-Z a-z 0-9 _ - .)`,
    );
  }
  const name = value as string;
  const first = owners.get(name);
  if (first !== undefined) {
    wrong(
      path,
      name,
      `the ${what} ${first} owns this name already, and a name has one owner; remove one of the two`,
    );
  }
  owners.set(name, owner);
  return name;
}
