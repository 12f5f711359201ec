import { randomBytes } from 'node:crypto';
import { lstat, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import * as z from 'zod';
import { type AnyTool, defineTool, ToolError } from '../../src/index.js';
import { ensureParent, resolveInWorkspace } from './paths.js';

const MAX_READ_BYTES = 256 * 1024;
const MAX_WRITE_CHARS = 1_000_000;

/** Relative path of `absolute` inside `root`, with "/" separators, for results the model reads. */
function shown(rootReal: string, absolute: string): string {
  const rel = relative(rootReal, absolute);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 8192);
  return sample.includes(0);
}

/**
 * The workspace tool set: read_file, list_dir, grep (read and search) and write_file (write), all
 * confined to `root`. Descriptions follow the checklist: what it does, when to use it and when not
 * (naming the neighbour), what each parameter means, side effects, and the common misuse.
 */
export function createWorkspaceTools(root: string): AnyTool[] {
  const readFileTool = defineTool({
    name: 'read_file',
    title: 'Read file',
    category: 'read',
    description: [
      'Read the full text of one UTF-8 file in the workspace and return it with its line count.',
      'Use it to look at a file whose path you know; to find which file mentions something, call grep first, and to see what files exist, call list_dir.',
      'It changes nothing, so repeating the call is safe. Files over 256 KB are refused: read a range with start_line and line_count instead.',
      'Do not use it for binary files such as images or archives; they are refused.',
    ].join('\n\n'),
    input: z.object({
      path: z
        .string()
        .min(1)
        .describe('File path relative to the workspace root, e.g. "docs/guide.md". No "..".'),
      start_line: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe('First line to return, counting from 1. Default: 1.'),
      line_count: z
        .number()
        .int()
        .min(1)
        .max(10_000)
        .optional()
        .describe('How many lines to return from start_line, 1 to 10000. Default: to the end of the file.'),
    }),
    output: z.object({ path: z.string(), lines: z.number().int(), content: z.string() }),
    returns: 'The path as given, the number of lines returned, and their text.',
    async execute({ path, start_line, line_count }) {
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
    },
  });

  const listDir = defineTool({
    name: 'list_dir',
    title: 'List folder',
    category: 'read',
    description: [
      "List the files and folders directly inside one workspace folder, with each entry's type and size in bytes.",
      'Use it to discover what exists before read_file or write_file; it does not look inside files (use grep for that) and does not recurse into subfolders.',
      'It changes nothing, so repeating the call is safe. At most 1000 entries are returned, sorted by name.',
    ].join('\n\n'),
    input: z.object({
      path: z
        .string()
        .default('.')
        .describe('Folder path relative to the workspace root; "." (the default) is the root itself.'),
    }),
    output: z.object({
      path: z.string(),
      entries: z.array(
        z.object({ name: z.string(), type: z.enum(['file', 'folder', 'link', 'other']), size: z.number() }),
      ),
      truncated: z.boolean(),
    }),
    returns: 'The folder, its entries (name, type, size in bytes) and whether the list was cut at 1000.',
    async execute({ path }) {
      const folder = await resolveInWorkspace(root, path);
      if (!(await stat(folder)).isDirectory()) {
        throw new ToolError(`"${path}" is a file, not a folder.`, {
          type: 'not_a_folder',
          hint: 'Call read_file on it instead.',
        });
      }
      const dirents = (await readdir(folder, { withFileTypes: true })).sort((a, b) =>
        a.name < b.name ? -1 : 1,
      );
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
    },
  });

  const grep = defineTool({
    name: 'grep',
    title: 'Search file contents',
    category: 'search',
    description: [
      'Search the text files under a workspace folder for lines containing a string, and return each match as path, line number and line.',
      'Use it to find where something is mentioned when you do not know the file; once you know the file, call read_file to see all of it. To see which files exist, call list_dir.',
      'It changes nothing, so repeating the call is safe. Binary files and files over 1 MB are skipped; at most max_results matches are returned.',
      'Do not use it to read a whole file: it returns matching lines only.',
    ].join('\n\n'),
    input: z.object({
      pattern: z
        .string()
        .min(1)
        .max(500)
        .describe('The text to look for, matched literally unless regex is true.'),
      path: z
        .string()
        .default('.')
        .describe('Folder (or single file) to search, relative to the workspace root. Default: ".".'),
      regex: z
        .boolean()
        .default(false)
        .describe('Treat pattern as a JavaScript regular expression. Default: false.'),
      ignore_case: z.boolean().default(false).describe('Match upper and lower case alike. Default: false.'),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .default(100)
        .describe('Most matches to return, 1 to 1000. Default: 100.'),
    }),
    output: z.object({
      matches: z.array(z.object({ path: z.string(), line: z.number().int(), text: z.string() })),
      truncated: z.boolean(),
    }),
    returns:
      'The matches (path relative to the workspace root, 1-based line number, the line) and whether more were cut off.',
    async execute({ pattern, path, regex, ignore_case, max_results }, { signal }) {
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
    },
  });

  const writeFile = defineTool({
    name: 'write_file',
    title: 'Write file',
    category: 'write',
    description: [
      'Create a UTF-8 text file in the workspace, or replace an existing one with the given content.',
      'Use it to save a whole file; to look at a file before changing it, call read_file first. Missing parent folders are created.',
      'Side effects: it overwrites the file if it exists, and the old content is lost. Repeating the same call leaves the same file, so it is safe to retry. The file is written to a temporary name and then renamed, so it is never left half-written.',
      'Do not use it for binary data or to append a line: send the complete new content.',
    ].join('\n\n'),
    input: z.object({
      path: z
        .string()
        .min(1)
        .describe('File path relative to the workspace root, e.g. "docs/notes.md". No "..".'),
      content: z
        .string()
        .max(MAX_WRITE_CHARS)
        .describe('The complete new text of the file, at most 1,000,000 characters.'),
    }),
    output: z.object({ path: z.string(), bytes: z.number().int(), created: z.boolean() }),
    returns: 'The path, the number of bytes written, and whether the file was new.',
    effects: { destructive: true, idempotent: true },
    async execute({ path, content }) {
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
    },
  });

  return [readFileTool, listDir, grep, writeFile];
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
