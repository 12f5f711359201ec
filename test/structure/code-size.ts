import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/** A file or a function longer than its limit, with where it is and how many lines it has. */
export interface Oversize {
  /** The file's path relative to the root, with `/`. */
  readonly file: string;
  /** The function's name and first line (`serve (line 89)`); absent for a whole file. */
  readonly function?: string;
  readonly lines: number;
}

/** The `.ts` files under `folder`, its subfolders included, sorted. */
export function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** How many lines a file has (a last line without its newline counts). */
export function lineCount(text: string): number {
  return text === '' ? 0 : text.replace(/\n$/, '').split('\n').length;
}

/** The files of `files` over `limit` lines. */
export function longFiles(root: string, files: readonly string[], limit: number): Oversize[] {
  return files.flatMap((file) => {
    const lines = lineCount(readFileSync(file, 'utf8'));
    return lines > limit ? [{ file: shown(root, file), lines }] : [];
  });
}

/**
 * The functions of `files` over `limit` lines, from the first line of the declaration to its last:
 * declarations, expressions, arrow functions, methods, accessors and constructors, each measured on its
 * own (an outer function's count includes the functions inside it).
 */
export function longFunctions(root: string, files: readonly string[], limit: number): Oversize[] {
  const found: Oversize[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = last - first + 1;
        if (lines > limit) {
          found.push({ file: shown(root, file), function: `${nameOf(node)} (line ${first + 1})`, lines });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** One oversize as a line of a test's message. */
export function formatOversize(oversize: Oversize, limit: number): string {
  return oversize.function === undefined
    ? `${oversize.file}: ${oversize.lines} lines, more than ${limit}`
    : `${oversize.file}: ${oversize.function}: ${oversize.lines} lines, more than ${limit}`;
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name !== undefined && (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name))) {
    return named.name.text;
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
  ) {
    if (ts.isIdentifier(parent.name)) return parent.name.text;
  }
  return '(anonymous)';
}

function shown(root: string, file: string): string {
  return relative(root, file).split(sep).join('/');
}
