import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type TS from 'typescript';
import {
  GENERATED_FORMAT,
  type GeneratedContracts,
  type GeneratedTool,
} from '../typed/generated-contracts.js';
import { type ExtractDiagnostic, type Report, sortDiagnostics } from './diagnostics.js';
import { findToolDeclarations } from './find-tool-declarations.js';
import ts from './peer.js';
import { readToolContract } from './read-tool-contract.js';
import { sourceFileCachingHost } from './source-file-cache.js';

/** What to extract from: source files, or a tsconfig (its files), and where the module goes. */
export interface ExtractOptions {
  /** TypeScript files that declare type-first tools. */
  readonly files?: readonly string[];
  /** A tsconfig.json whose files are scanned (and whose compiler options are used). */
  readonly project?: string;
  /** The generated module's path; paths inside it are written relative to it. */
  readonly output: string;
  /** What relative paths are resolved against (default: the process's working directory). */
  readonly cwd?: string;
}

/** The result of an extraction: the contracts, or every problem found. */
export type ExtractResult =
  | {
      readonly ok: true;
      readonly contracts: GeneratedContracts;
      /** The module specifier the generated module imports its types from. */
      readonly typesFrom: string;
    }
  | { readonly ok: false; readonly diagnostics: readonly ExtractDiagnostic[] };

/** Bumped when the generator's output changes for the same input, so old modules show as stale. */
const GENERATOR_REVISION = 'toolpact-gen/1';

/**
 * Reads the type-first tools of a set of files with the TypeScript compiler and returns their
 * contracts, keyed and sorted by name, with a hash of the declarations they come from. Every problem
 * (an unsupported type, a bad doc tag, a duplicate name) is collected in one pass; any problem makes
 * the result a list of diagnostics instead.
 *
 * @example
 * const result = extractContracts({ files: ['src/tools.ts'], output: 'src/contracts.generated.ts' });
 * if (!result.ok) for (const d of result.diagnostics) console.error(formatDiagnostic(d, process.cwd()));
 */
export function extractContracts(options: ExtractOptions): ExtractResult {
  const cwd = options.cwd ?? process.cwd();
  const output = resolve(cwd, options.output);
  const diagnostics: ExtractDiagnostic[] = [];
  const { program, roots } = createProgram(options, cwd, output, diagnostics);
  const checker = program.getTypeChecker();
  const tagProblems = new Set<string>();
  const report: Report = (node, code, message, type) => {
    const file = node.getSourceFile();
    const { line, character } = file.getLineAndCharacterOfPosition(node.getStart());
    // A tag written once in a type that several tools (or a tool's parameters and its result) use is
    // reported once.
    if (code === 'invalid_tag' || code === 'tag_mismatch') {
      const key = `${file.fileName}:${line}:${character}:${code}`;
      if (tagProblems.has(key)) return;
      tagProblems.add(key);
    }
    diagnostics.push({
      code,
      file: file.fileName,
      line: line + 1,
      column: character + 1,
      message,
      ...(type ? { type } : {}),
    });
  };
  const isUserFile = (file: TS.SourceFile) =>
    !file.isDeclarationFile &&
    !program.isSourceFileFromExternalLibrary(file) &&
    !/[\\/]node_modules[\\/]/.test(file.fileName);

  const tools = new Map<string, { tool: GeneratedTool; inputs: readonly string[] }>();
  const declared = new Map<string, TS.Node>();
  const sources: string[] = [];
  let typesFrom: string | undefined;
  for (const file of roots) {
    const syntax = program.getSyntacticDiagnostics(file);
    for (const problem of syntax) {
      const { line, character } = file.getLineAndCharacterOfPosition(problem.start ?? 0);
      diagnostics.push({
        code: 'syntax_error',
        file: file.fileName,
        line: line + 1,
        column: character + 1,
        message: ts.flattenDiagnosticMessageText(problem.messageText, ' '),
      });
    }
    if (syntax.length > 0) continue;
    sources.push(relativeTo(output, file.fileName));
    for (const declaration of findToolDeclarations(file, checker, report)) {
      typesFrom ??= declaration.importedFrom ? typesSpecifier(declaration.importedFrom, output) : undefined;
      const read = readToolContract(declaration, checker, report, isUserFile);
      const earlier = declared.get(declaration.name);
      if (earlier) {
        const where = earlier.getSourceFile();
        const { line } = where.getLineAndCharacterOfPosition(earlier.getStart());
        report(
          declaration.site,
          'duplicate_name',
          `a tool named "${declaration.name}" is already declared at ${relative(cwd, where.fileName).split(sep).join('/')}:${line + 1}; tool names must be unique, so pass { name } to one of them.`,
        );
        continue;
      }
      declared.set(declaration.name, declaration.site);
      if (!read) continue;
      tools.set(declaration.name, {
        tool: { ...read.tool, source: relativeTo(output, file.fileName) },
        inputs: read.inputs,
      });
    }
  }
  if (diagnostics.length > 0) return { ok: false, diagnostics: sortDiagnostics(diagnostics) };

  const names = [...tools.keys()].sort();
  const hash = createHash('sha256');
  hash.update(`${GENERATOR_REVISION}\n`);
  for (const name of names) {
    for (const input of tools.get(name)!.inputs) hash.update(`${layoutFree(input)}\n\u0001`);
  }
  const contracts: GeneratedContracts = {
    format: GENERATED_FORMAT,
    inputsHash: `sha256:${hash.digest('hex')}`,
    sources: [...new Set(sources)].sort(),
    tools: Object.fromEntries(names.map((name) => [name, tools.get(name)!.tool])),
  };
  return { ok: true, contracts, typesFrom: typesFrom ?? 'toolpact' };
}

/**
 * The text of a declaration without its layout, so running a formatter does not make the contracts
 * look stale: comment line starts, whitespace around punctuation and trailing commas go, and other
 * whitespace runs become one space.
 */
function layoutFree(text: string): string {
  return text
    .replace(/\n\s*\*(?!\/)/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/\s*([(){}[\]<>,;:=|&?])\s*/g, '$1')
    .replace(/,([)\]}>])/g, '$1');
}

function createProgram(
  options: ExtractOptions,
  cwd: string,
  output: string,
  diagnostics: ExtractDiagnostic[],
): { program: TS.Program; roots: TS.SourceFile[] } {
  let compilerOptions: TS.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
  };
  let rootNames: string[];
  if (options.project) {
    const project = resolve(cwd, options.project);
    const read = ts.readConfigFile(project, ts.sys.readFile);
    const parsed = ts.parseJsonConfigFileContent(read.config ?? {}, ts.sys, dirname(project));
    for (const problem of [...(read.error ? [read.error] : []), ...parsed.errors]) {
      diagnostics.push({
        code: 'syntax_error',
        file: problem.file?.fileName ?? project,
        line: 1,
        column: 1,
        message: ts.flattenDiagnosticMessageText(problem.messageText, ' '),
      });
    }
    compilerOptions = parsed.options;
    rootNames = parsed.fileNames;
  } else {
    rootNames = (options.files ?? []).map((file) => resolve(cwd, file));
    const first = rootNames[0];
    const config = first ? ts.findConfigFile(dirname(first), ts.sys.fileExists) : undefined;
    if (config) {
      const read = ts.readConfigFile(config, ts.sys.readFile);
      compilerOptions = ts.parseJsonConfigFileContent(read.config ?? {}, ts.sys, dirname(config)).options;
    }
  }
  // Optional members are only visible as such with strict null checks; nothing is emitted.
  compilerOptions = {
    ...compilerOptions,
    strictNullChecks: true,
    noEmit: true,
    declaration: false,
    sourceMap: false,
  };
  const program = ts.createProgram({
    rootNames,
    options: compilerOptions,
    host: sourceFileCachingHost(compilerOptions),
  });
  const wanted = new Set(rootNames.map((name) => resolve(name)));
  const roots = program
    .getSourceFiles()
    .filter(
      (file) =>
        wanted.has(resolve(file.fileName)) && resolve(file.fileName) !== output && !file.isDeclarationFile,
    )
    .sort((a, b) => (a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0));
  return { program, roots };
}

/** `file` relative to the generated module's folder, with `/` separators. */
function relativeTo(output: string, file: string): string {
  return relative(dirname(output), file).split(sep).join('/');
}

/**
 * The specifier the generated module imports toolpact's types from: the one the source used, made
 * relative to the generated module when it is a relative path.
 */
function typesSpecifier(from: { specifier: string; file: TS.SourceFile }, output: string): string {
  if (!from.specifier.startsWith('.')) return from.specifier;
  const target = resolve(dirname(from.file.fileName), from.specifier);
  let path = relativeTo(output, target);
  if (!path.startsWith('.')) path = `./${path}`;
  return isAbsolute(path) || !existsSync(dirname(resolve(dirname(output), path))) ? from.specifier : path;
}
