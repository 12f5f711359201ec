import { existsSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { GENERATION } from './typescript-hooks.js';

/** Whether this process's loader runs TypeScript: toolpact's hooks, or the process's own (a test runner). */
let ready = false;
/** Imports so far: each one loads its module, and the project files that module imports, afresh. */
let loads = 0;

/**
 * Imports a TypeScript module (`.ts` or `.mts`, an ES module) on any supported Node, as the CLI loads
 * tool modules and `toolpact.config.ts`: the first call registers toolpact's module hooks
 * (`typescript-hooks.ts`) in this process, and from then on every `.ts` import in it loads through
 * them. Each import is a fresh copy of the module and of the project's files it imports (not its
 * packages), apart from any copy the process imported itself. A process that runs TypeScript already
 * (the sources of toolpact itself, under tsx or a test runner) keeps its own loader.
 *
 * @example
 * const exports = await importTypeScript('/work/project/tools.ts');
 */
export async function importTypeScript(file: string): Promise<Record<string, unknown>> {
  if (/\.cts$/.test(file)) {
    throw new Error(
      'a .cts file is a CommonJS module, which toolpact does not load; write it as an ES module (.ts or .mts, with import and export).',
    );
  }
  registerHooks();
  const url = pathToFileURL(file);
  // Neither a copy this process imported already (a program that runs the CLI on its own module) nor a
  // reload's predecessor (the studio's, after an edit) is handed back: the hooks carry this mark to
  // every file of the project the module imports.
  url.searchParams.set(GENERATION, String(++loads));
  try {
    return (await import(url.href)) as Record<string, unknown>;
  } catch (error) {
    throw withDecoratorHint(error, file);
  }
}

function registerHooks(): void {
  if (ready) return;
  const built = new URL('./typescript-hooks.js', import.meta.url);
  const register = (
    nodeModule as {
      register?: (specifier: string, options: { parentURL: string; data?: { leaveAlone: string } }) => void;
    }
  ).register;
  if (existsSync(fileURLToPath(built))) {
    if (typeof register !== 'function') {
      throw new Error(
        `loading TypeScript needs Node.js 20.6 or later, and this is ${process.version}. Upgrade Node.js, or compile the module to JavaScript and give the .js file.`,
      );
    }
    register(built.href, { parentURL: import.meta.url });
  } else {
    // The sources of toolpact, run by a loader that already runs TypeScript: its loader loads the hooks
    // (tsx), or, where it cannot register them (a test runner's own module graph), runs the modules.
    try {
      // toolpact's own sources stay with that loader (it caches what it compiles); the modules given load
      // through these hooks.
      register?.(new URL('./typescript-hooks.ts', import.meta.url).href, {
        parentURL: import.meta.url,
        data: { leaveAlone: new URL('../', import.meta.url).href },
      });
    } catch {
      // The process's own loader runs TypeScript.
    }
  }
  // Stack traces of the loaded modules point into their sources (the transform's inline maps).
  process.setSourceMapsEnabled(true);
  ready = true;
}

/** A syntax error at an `@` where the compiler that would lower decorators is missing says so. */
function withDecoratorHint(error: unknown, file: string): unknown {
  if (!(error instanceof SyntaxError) || !/Invalid or unexpected token/.test(error.message)) return error;
  let resolvable = true;
  try {
    nodeModule.createRequire(file).resolve('typescript');
  } catch {
    resolvable = false;
  }
  if (resolvable) return error;
  return new SyntaxError(
    `${error.message}. If the module uses decorators: Node.js runs none yet, and toolpact lowers them with the TypeScript compiler, which this project does not have; install it (npm install --save-dev typescript).`,
    { cause: error },
  );
}
