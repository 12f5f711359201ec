import { randomBytes } from 'node:crypto';
import { lstat, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { ToolError, type ToolExecuteContext, tool, toolsOf } from '../../src/index.js';
import { ensureParent, resolveInWorkspace } from '../workspace/paths.js';
import contracts from './contracts.generated.js';

const MAX_READ_BYTES = 256 * 1024;

/** What read_file returns. */
export interface FileText {
  path: string;
  /** @integer */
  lines: number;
  content: string;
}

/** One entry of a folder. */
export interface FolderEntry {
  name: string;
  type: 'file' | 'folder' | 'link' | 'other';
  size: number;
}

/** What list_dir returns. */
export interface FolderListing {
  path: string;
  entries: FolderEntry[];
  truncated: boolean;
}

/** The options of grep. */
export interface GrepOptions {
  /**
   * The text to look for, matched literally unless regex is true.
   * @minLength 1
   * @maxLength 500
   */
  pattern: string;
  /** Folder (or single file) to search, relative to the workspace root. Default: ".". */
  path?: string;
  /** Treat pattern as a JavaScript regular expression. Default: false. */
  regex?: boolean;
  /** Match upper and lower case alike. Default: false. */
  ignore_case?: boolean;
  /**
   * Most matches to return, 1 to 1000. Default: 100.
   * @integer
   * @minimum 1
   * @maximum 1000
   */
  max_results?: number;
}

/** One line grep found. */
export interface GrepMatch {
  path: string;
  /** @integer */
  line: number;
  text: string;
}

/** What grep returns. */
export interface GrepResult {
  matches: GrepMatch[];
  truncated: boolean;
}

/** What write_file returns. */
export interface WriteResult {
  path: string;
  /** @integer */
  bytes: number;
  created: boolean;
}

/**
 * The workspace tools declared type-first: each method's signature and doc comment are its contract,
 * read by `toolpact gen` into `contracts.generated.ts`. The same four tools as the schema-first
 * `createWorkspaceTools`, confined to `root` with the same path checks.
 */
export class WorkspaceTools {
  constructor(readonly root: string) {}

  /**
   * Read the full text of one UTF-8 file in the workspace and return it with its line count.
   *
   * Use it to look at a file whose path you know; to find which file mentions something, call grep
   * first, and to see what files exist, call list_dir.
   *
   * It changes nothing, so repeating the call is safe. Files over 256 KB are refused: read a range
   * with start_line and line_count instead.
   *
   * Do not use it for binary files such as images or archives; they are refused.
   *
   * @param path File path relative to the workspace root, e.g. "docs/guide.md". No "..".
   * @param start_line First line to return, counting from 1. Default: 1.
   * @param line_count How many lines to return from start_line, 1 to 10000. Default: to the end of the file.
   * @returns The path as given, the number of lines returned, and their text.
   */
  @tool({ category: 'read', title: 'Read file', contracts })
  async read_file(
    /** @minLength 1 */ path: string,
    /** @integer @minimum 1 */ start_line?: number,
    /** @integer @minimum 1 @maximum 10000 */ line_count?: number,
  ): Promise<FileText> {
    const file = await resolveInWorkspace(this.root, path);
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
      throw new ToolError(`"${path}" is a binary file; read_file reads text only.`, { type: 'binary_file' });
    }
    let lines = bytes.toString('utf8').split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    if (ranged) {
      const from = (start_line ?? 1) - 1;
      lines = lines.slice(from, line_count === undefined ? undefined : from + line_count);
    }
    return { path, lines: lines.length, content: lines.join('\n') };
  }

  /**
   * List the files and folders directly inside one workspace folder, with each entry's type and size in bytes.
   *
   * Use it to discover what exists before read_file or write_file; it does not look inside files (use
   * grep for that) and does not recurse into subfolders.
   *
   * It changes nothing, so repeating the call is safe. At most 1000 entries are returned, sorted by name.
   *
   * @param path Folder path relative to the workspace root; "." (the default) is the root itself.
   * @returns The folder, its entries (name, type, size in bytes) and whether the list was cut at 1000.
   */
  @tool({ category: 'read', title: 'List folder', contracts })
  async list_dir(path = '.'): Promise<FolderListing> {
    const folder = await resolveInWorkspace(this.root, path);
    if (!(await stat(folder)).isDirectory()) {
      throw new ToolError(`"${path}" is a file, not a folder.`, {
        type: 'not_a_folder',
        hint: 'Call read_file on it instead.',
      });
    }
    const dirents = (await readdir(folder, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    );
    const entries: FolderEntry[] = [];
    for (const entry of dirents.slice(0, 1000)) {
      const type = entry.isSymbolicLink()
        ? 'link'
        : entry.isDirectory()
          ? 'folder'
          : entry.isFile()
            ? 'file'
            : 'other';
      const size = type === 'file' ? (await stat(join(folder, entry.name))).size : 0;
      entries.push({ name: entry.name, type, size });
    }
    return { path, entries, truncated: dirents.length > 1000 };
  }

  /**
   * Search the text files under a workspace folder for lines containing a string, and return each match as path, line number and line.
   *
   * Use it to find where something is mentioned when you do not know the file; once you know the
   * file, call read_file to see all of it. To see which files exist, call list_dir.
   *
   * It changes nothing, so repeating the call is safe. Binary files and files over 1 MB are skipped;
   * at most max_results matches are returned.
   *
   * Do not use it to read a whole file: it returns matching lines only.
   *
   * @returns The matches (path relative to the workspace root, 1-based line number, the line) and whether more were cut off.
   */
  @tool({ category: 'search', title: 'Search file contents', contracts })
  async grep(
    { pattern, path = '.', regex = false, ignore_case = false, max_results = 100 }: GrepOptions,
    { signal }: ToolExecuteContext,
  ): Promise<GrepResult> {
    const start = await resolveInWorkspace(this.root, path);
    const rootReal = await resolveInWorkspace(this.root, '.');
    const matcher = makeMatcher(pattern, regex, ignore_case);
    const matches: GrepMatch[] = [];
    let truncated = false;
    const visit = async (current: string): Promise<void> => {
      if (truncated || signal.aborted) return;
      const info = await stat(current);
      if (info.isDirectory()) {
        for (const name of (await readdir(current)).sort()) {
          if (name === 'node_modules' || name === '.git') continue;
          // Links are not followed, so a search never leaves the workspace.
          const child = join(current, name);
          if (!(await lstat(child)).isSymbolicLink()) await visit(child);
        }
        return;
      }
      if (!info.isFile() || info.size > 1024 * 1024) return;
      const bytes = await readFile(current);
      if (looksBinary(bytes)) return;
      const lines = bytes.toString('utf8').split('\n');
      for (const [index, line] of lines.entries()) {
        if (!matcher(line)) continue;
        if (matches.length >= max_results) {
          truncated = true;
          return;
        }
        matches.push({
          path: relative(rootReal, current).split(sep).join('/'),
          line: index + 1,
          text: line.slice(0, 500),
        });
      }
    };
    await visit(start);
    return { matches, truncated };
  }

  /**
   * Create a UTF-8 text file in the workspace, or replace an existing one with the given content.
   *
   * Use it to save a whole file; to look at a file before changing it, call read_file first. Missing
   * parent folders are created.
   *
   * Side effects: it overwrites the file if it exists, and the old content is lost. Repeating the same
   * call leaves the same file, so it is safe to retry. The file is written to a temporary name and then
   * renamed, so it is never left half-written.
   *
   * Do not use it for binary data or to append a line: send the complete new content.
   *
   * @param path File path relative to the workspace root, e.g. "docs/notes.md". No "..".
   * @param content The complete new text of the file, at most 1,000,000 characters.
   * @returns The path, the number of bytes written, and whether the file was new.
   */
  @tool({
    category: 'write',
    title: 'Write file',
    effects: { destructive: true, idempotent: true },
    contracts,
  })
  async write_file(
    /** @minLength 1 */ path: string,
    /** @maxLength 1000000 */ content: string,
  ): Promise<WriteResult> {
    const target = await resolveInWorkspace(this.root, path, { mustExist: false });
    const existing = await stat(target).catch(() => undefined);
    if (existing?.isDirectory())
      throw new ToolError(`"${path}" is a folder; give a file path.`, { type: 'not_a_file' });
    await ensureParent(this.root, target, path);
    const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
    const data = Buffer.from(content, 'utf8');
    const handle = await open(temporary, 'wx', 0o644);
    try {
      await handle.writeFile(data);
      await handle.sync();
      await handle.close();
      await rename(temporary, target);
    } catch (error) {
      await handle.close().catch(() => undefined);
      await rm(temporary, { force: true });
      throw error;
    }
    return { path, bytes: data.length, created: existing === undefined };
  }
}

/** The type-first workspace tools, confined to `root`. */
export function createTypedWorkspaceTools(root: string) {
  return toolsOf(new WorkspaceTools(root));
}

function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0);
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
  try {
    const compiled = new RegExp(pattern, ignoreCase ? 'i' : '');
    return (line) => compiled.test(line);
  } catch (error) {
    throw new ToolError(`The regular expression is invalid: ${(error as Error).message}.`, {
      type: 'invalid_pattern',
      hint: 'Fix the expression, or set regex to false to search for the text literally.',
    });
  }
}
