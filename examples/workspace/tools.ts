import * as z from 'zod';
import { type AnyTool, defineTool } from '../../src/index.js';
import { grepFiles, listFolder, MAX_WRITE_CHARS, readTextFile, writeTextFile } from './operations.js';

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
    execute({ path, start_line, line_count }) {
      return readTextFile(root, path, start_line, line_count);
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
    execute({ path }) {
      return listFolder(root, path);
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
    execute(request, { signal }) {
      return grepFiles(root, request, signal);
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
    execute({ path, content }) {
      return writeTextFile(root, path, content);
    },
  });

  return [readFileTool, listDir, grep, writeFile];
}
