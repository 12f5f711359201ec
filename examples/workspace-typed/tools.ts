import { type ToolExecuteContext, tool, toolsOf } from '../../src/index.js';
import { grepFiles, listFolder, readTextFile, writeTextFile } from '../workspace/operations.js';
import contracts from './contracts.generated.js';

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
    return readTextFile(this.root, path, start_line, line_count);
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
    return listFolder(this.root, path);
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
    return grepFiles(this.root, { pattern, path, regex, ignore_case, max_results }, signal);
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
    return writeTextFile(this.root, path, content);
  }
}

/** The type-first workspace tools, confined to `root`. */
export function createTypedWorkspaceTools(root: string) {
  return toolsOf(new WorkspaceTools(root));
}
