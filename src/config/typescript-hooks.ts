/**
 * Node.js module hooks (`module.register`, see `import-typescript.ts`) that run TypeScript modules on a
 * Node without type stripping (20). `.ts` and `.mts` files load as ES modules, their types removed by
 * SWC's TypeScript transform (`@swc/wasm-typescript`, WebAssembly, no native binary), which also lowers
 * enums, namespaces and parameter properties, and drops imports used only as types; an inline source
 * map leads stack traces back to the source. Standard decorators, which Node 20
 * cannot run and SWC's TypeScript transform leaves as written, are lowered by the TypeScript compiler
 * when the module's project has it (`typescript`, the peer `toolpact gen` needs). From a TypeScript
 * file, an import that names `./x.js` (as TypeScript's own `NodeNext` resolution writes it) finds
 * `./x.ts`, and `./x` finds `./x.ts` or `./x/index.ts`.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cacheEntry, readEntry, writeEntry } from './typescript-cache.js';

interface ResolveContext {
  readonly parentURL?: string | undefined;
  readonly conditions: readonly string[];
}
interface ResolveResult {
  readonly url: string;
  readonly format?: string | null | undefined;
  readonly shortCircuit?: boolean;
}
interface LoadContext {
  readonly format?: string | null | undefined;
  readonly conditions: readonly string[];
}
interface LoadResult {
  readonly format: string;
  readonly source?: string | ArrayBuffer | Uint8Array | undefined;
  readonly shortCircuit?: boolean;
}

type SwcTransform = (
  source: string,
  options: { mode: 'strip-only' | 'transform'; filename: string; sourceMap?: boolean },
) => { code: string; map?: string };

/** TypeScript that loads as an ES module. `.cts` (CommonJS) is refused where the module is loaded. */
const TYPESCRIPT = /\.m?ts$/;
/**
 * A decorator as SWC writes its output: on a line of its own (a class or a member's), or, on a class
 * expression, followed by the next decorator or `class` on the next line. An `@` inside a string or a
 * regular expression is neither (an `@` that starts a line of a template literal is taken for one: the
 * module is then compiled by TypeScript, to the same effect).
 */
const DECORATOR = /^[ \t]*@[A-Za-z_$(]|@[A-Za-z_$][\w$.]*(?:\([^\n]*\))?\n[ \t]*(?:@|class\b)/m;

/** The query mark of one load by `importTypeScript`, carried to the project files the module imports. */
export const GENERATION = 'toolpact-load';

const require = createRequire(import.meta.url);
let swc: SwcTransform | undefined;
/** A folder whose TypeScript is left to the loader already in place (toolpact's own sources, under tsx). */
let leftAlone: string | undefined;

/** Takes what `importTypeScript` registers the hooks with: `{ leaveAlone?: string }`, a folder's URL. */
export function initialize(data: { readonly leaveAlone?: string } | undefined): void {
  leftAlone = data?.leaveAlone;
}

/** Finds `./x.ts` for `./x.js` and `./x`, from a TypeScript file, where the specifier itself is not found. */
export async function resolve(
  specifier: string,
  context: ResolveContext,
  nextResolve: (specifier: string, context?: ResolveContext) => Promise<ResolveResult>,
): Promise<ResolveResult> {
  const parent = context.parentURL;
  try {
    return carryGeneration(await nextResolve(specifier, context), parent);
  } catch (error) {
    if (!isNotFound(error) || !parent || !isTypeScript(parent) || !isPathLike(specifier)) throw error;
    for (const candidate of alternatives(specifier)) {
      try {
        return carryGeneration(await nextResolve(candidate, context), parent);
      } catch (again) {
        if (!isNotFound(again)) throw again;
      }
    }
    throw error;
  }
}

/** A project file imported by a marked module gets its mark: each load has copies of its own. */
function carryGeneration(result: ResolveResult, parent: string | undefined): ResolveResult {
  if (!parent || !result.url.startsWith('file:') || result.url.includes('/node_modules/')) return result;
  const generation = new URL(parent).searchParams.get(GENERATION);
  if (!generation) return result;
  const url = new URL(result.url);
  url.searchParams.set(GENERATION, generation);
  return { ...result, url: url.href };
}

/** Loads a `.ts` or `.mts` file as an ES module, its types removed; anything else as Node would. */
export async function load(
  url: string,
  context: LoadContext,
  nextLoad: (url: string, context?: LoadContext) => Promise<LoadResult>,
): Promise<LoadResult> {
  if (!url.startsWith('file:') || !isTypeScript(url) || (leftAlone && url.startsWith(leftAlone))) {
    return nextLoad(url, context);
  }
  const filename = fileURLToPath(url);
  const source = await readFile(filename, 'utf8');
  const entry = cacheEntry(filename, source);
  const cached = entry === undefined ? undefined : readEntry(entry);
  if (cached !== undefined) return { format: 'module', source: cached, shortCircuit: true };
  const compiled = compile(source, filename, url);
  // A module with decorators compiles as the project's compiler (present or not) says: not kept.
  if (entry !== undefined && !compiled.decorated) writeEntry(entry, compiled.code);
  return { format: 'module', source: compiled.code, shortCircuit: true };
}

/**
 * The JavaScript of one TypeScript module: SWC's transform, with an inline source map; the TypeScript
 * compiler's output where the module has decorators (`decorated`) and its project has the compiler.
 */
export function compile(source: string, filename: string, url: string): { code: string; decorated: boolean } {
  swc ??= (require('@swc/wasm-typescript') as { transformSync: SwcTransform }).transformSync;
  let output: { code: string; map?: string };
  try {
    // Not its strip-only mode: that keeps an import of a name used only as a type (written without
    // `type`), which then fails as an ES module; the transform drops it, as tsc and esbuild do.
    output = swc(source, { mode: 'transform', filename, sourceMap: true });
  } catch (error) {
    throw new SyntaxError(syntaxMessage(error, filename));
  }
  // Decorators are looked for where comments are gone (the transform keeps them only for its map), so
  // a doc comment's `@param` does not count.
  const decorated =
    DECORATOR.test(output.code) && DECORATOR.test(swc(source, { mode: 'transform', filename }).code);
  if (decorated) {
    const lowered = lowerDecorators(source, filename, url);
    if (lowered !== undefined) return { code: lowered, decorated };
  }
  const code = output.map
    ? `${output.code}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(output.map).toString('base64')}\n`
    : output.code;
  return { code, decorated };
}

/** Where and what SWC found wrong (it throws a plain object: message, line, 0-based column, snippet). */
function syntaxMessage(error: unknown, filename: string): string {
  if (error instanceof Error) return `${filename}: ${error.message}`;
  const found = (error ?? {}) as {
    message?: unknown;
    startLine?: unknown;
    startColumn?: unknown;
    snippet?: unknown;
  };
  const message = typeof found.message === 'string' ? found.message : String(error);
  const at =
    typeof found.startLine === 'number' && typeof found.startColumn === 'number'
      ? `:${found.startLine}:${found.startColumn + 1}`
      : '';
  const snippet = typeof found.snippet === 'string' ? `\n${found.snippet.trimEnd()}` : '';
  return `${filename}${at}: ${message}${snippet}`;
}

/** The TypeScript compiler's output for a module with standard decorators, or undefined without one. */
function lowerDecorators(source: string, filename: string, url: string): string | undefined {
  const compiler = typescriptFor(url);
  if (!compiler) return undefined;
  return compiler.transpileModule(source, {
    fileName: filename,
    compilerOptions: {
      target: compiler.ScriptTarget.ES2022,
      module: compiler.ModuleKind.ESNext,
      experimentalDecorators: false,
      useDefineForClassFields: true,
      inlineSourceMap: true,
    },
  }).outputText;
}

interface TypeScriptCompiler {
  readonly ScriptTarget: { readonly ES2022: number };
  readonly ModuleKind: { readonly ESNext: number };
  transpileModule(
    source: string,
    options: { fileName: string; compilerOptions: Record<string, unknown> },
  ): { outputText: string };
}

/** The `typescript` package the module's project resolves, else the one beside toolpact, else none. */
export function typescriptFor(url: string): TypeScriptCompiler | undefined {
  for (const from of [createRequire(url), require]) {
    try {
      return from('typescript') as TypeScriptCompiler;
    } catch {
      // Not installed there.
    }
  }
  return undefined;
}

function alternatives(specifier: string): string[] {
  if (/\.js$/.test(specifier)) return [specifier.replace(/\.js$/, '.ts')];
  if (/\.mjs$/.test(specifier)) return [specifier.replace(/\.mjs$/, '.mts')];
  const last = specifier.slice(specifier.lastIndexOf('/') + 1);
  if (last.includes('.') && last !== '.' && last !== '..') return [];
  const bare = specifier.replace(/\/$/, '');
  return [`${bare}.ts`, `${bare}.mts`, `${bare}/index.ts`];
}

function isTypeScript(url: string): boolean {
  try {
    return TYPESCRIPT.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

function isPathLike(specifier: string): boolean {
  return /^(?:\.{1,2}\/|\/|file:)/.test(specifier) || specifier === '.' || specifier === '..';
}

function isNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_UNSUPPORTED_DIR_IMPORT';
}
