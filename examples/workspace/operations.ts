/**
 * What the workspace tools do, written once: the schema-first tools (`tools.ts`) and the type-first ones
 * (`../workspace-typed/tools.ts`) are two front ends over these functions.
 */
import { randomBytes } from 'node:crypto';
import { lstat, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { ToolError } from '../../src/index.js';
import { ensureParent, resolveInWorkspace } from './paths.js';

export const MAX_READ_BYTES = 256 * 1024;
export const MAX_WRITE_CHARS = 1_000_000;

/** Relative path of `absolute` inside `root`, with "/" separators, for results the model reads. */
function shown(rootReal: string, absolute: string): string {
  const rel = relative(rootReal, absolute);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 8192);
  return sample.includes(0);
}

/** read_file: the text of one file, or a range of its lines. */
export async function readTextFile(root: string, path: string, start_line?: number, line_count?: number) {
  const file = await resolveInWorkspace(root, path);
  const info = await stat(file);
  if (!info.isFile()) {
    throw new ToolError(`"${path}" is a folder, not a file.`, {
      type: 'not_a_file',
      hint: 'Call list_dir on it instead.',
    });
  }
  const ranged = start_line !== undefined || line_count !== undefined;
  if (info.size > MAX_READ_BYTES && !ranged) {
    throw new ToolError(
      `"${path}" has ${info.size} bytes, more than the ${MAX_READ_BYTES} that can be read at once.`,
      {
        type: 'file_too_large',
        hint: 'Read it in parts with start_line and line_count, or grep for what you need.',
      },
    );
  }
  const bytes = await readFile(file);
  if (looksBinary(bytes)) {
    throw new ToolError(`"${path}" is a binary file; read_file reads text only.`, {
      type: 'binary_file',
    });
  }
  let lines = bytes.toString('utf8').split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  if (ranged) {
    const from = (start_line ?? 1) - 1;
    lines = lines.slice(from, line_count === undefined ? undefined : from + line_count);
  }
  return { path, lines: lines.length, content: lines.join('\n') };
}

/** list_dir: the entries directly inside one folder. */
export async function listFolder(root: string, path: string) {
  const folder = await resolveInWorkspace(root, path);
  if (!(await stat(folder)).isDirectory()) {
    throw new ToolError(`"${path}" is a file, not a folder.`, {
      type: 'not_a_folder',
      hint: 'Call read_file on it instead.',
    });
  }
  const dirents = (await readdir(folder, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  const entries = [];
  for (const entry of dirents.slice(0, 1000)) {
    const type = entry.isSymbolicLink()
      ? 'link'
      : entry.isDirectory()
        ? 'folder'
        : entry.isFile()
          ? 'file'
          : 'other';
    const size = type === 'file' ? (await stat(join(folder, entry.name))).size : 0;
    entries.push({ name: entry.name, type, size } as const);
  }
  return { path, entries, truncated: dirents.length > 1000 };
}

/** grep's options, after defaults. */
export interface GrepRequest {
  readonly pattern: string;
  readonly path: string;
  readonly regex: boolean;
  readonly ignore_case: boolean;
  readonly max_results: number;
}

/** grep: the lines under a folder that contain a string. Links are not followed. */
export async function grepFiles(root: string, request: GrepRequest, signal: AbortSignal) {
  const { pattern, path, regex, ignore_case, max_results } = request;
  const start = await resolveInWorkspace(root, path);
  const rootReal = await resolveInWorkspace(root, '.');
  const matcher = makeMatcher(pattern, regex, ignore_case);
  const matches: { path: string; line: number; text: string }[] = [];
  let truncated = false;
  const visit = async (current: string): Promise<void> => {
    if (truncated || signal.aborted) return;
    const info = await stat(current);
    if (info.isDirectory()) {
      const names = (await readdir(current)).sort();
      for (const name of names) {
        if (name === 'node_modules' || name === '.git') continue;
        // Links are not followed, so a search never leaves the workspace.
        const child = join(current, name);
        if ((await lstat(child)).isSymbolicLink()) continue;
        await visit(child);
      }
      return;
    }
    if (!info.isFile() || info.size > 1024 * 1024) return;
    const bytes = await readFile(current);
    if (looksBinary(bytes)) return;
    const lines = bytes.toString('utf8').split('\n');
    for (let index = 0; index < lines.length; index++) {
      if (!matcher(lines[index]!)) continue;
      if (matches.length >= max_results) {
        truncated = true;
        return;
      }
      matches.push({
        path: shown(rootReal, current),
        line: index + 1,
        text: lines[index]!.slice(0, 500),
      });
    }
  };
  await visit(start);
  return { matches, truncated };
}

/** write_file: a whole file written to a temporary name, synced, then renamed over the target. */
export async function writeTextFile(root: string, path: string, content: string) {
  const target = await resolveInWorkspace(root, path, { mustExist: false });
  let created = true;
  try {
    const info = await stat(target);
    if (info.isDirectory())
      throw new ToolError(`"${path}" is a folder; give a file path.`, { type: 'not_a_file' });
    created = false;
  } catch (error) {
    if (error instanceof ToolError) throw error;
  }
  await ensureParent(root, target, path);
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const data = Buffer.from(content, 'utf8');
  const handle = await open(temporary, 'wx', 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return { path, bytes: data.length, created };
}

// A pattern that nests quantifiers, like (a+)+ or (a|aa)*, can take exponential time on a crafted line.
const NESTED_QUANTIFIER =
  /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)\s*[+*{]|\((?:[^()\\]|\\.)*\|(?:[^()\\]|\\.)*\)\s*[+*{]/;

function makeMatcher(pattern: string, regex: boolean, ignoreCase: boolean): (line: string) => boolean {
  if (!regex) {
    const needle = ignoreCase ? pattern.toLowerCase() : pattern;
    return ignoreCase ? (line) => line.toLowerCase().includes(needle) : (line) => line.includes(needle);
  }
  if (NESTED_QUANTIFIER.test(pattern)) {
    throw new ToolError(
      'The regular expression repeats a group that itself repeats, which can take exponential time.',
      {
        type: 'unsafe_pattern',
        hint: 'Simplify the pattern (e.g. "a+" instead of "(a+)+"), or search for a literal string with regex false.',
      },
    );
  }
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern, ignoreCase ? 'i' : '');
  } catch (error) {
    throw new ToolError(`The regular expression is invalid: ${(error as Error).message}.`, {
      type: 'invalid_pattern',
      hint: 'Fix the expression, or set regex to false to search for the text literally.',
    });
  }
  return (line) => compiled.test(line);
}
