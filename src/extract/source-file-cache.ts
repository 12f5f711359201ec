import type TS from 'typescript';
import ts from './peer.js';

/**
 * How many parsed files one process keeps at most; the least recently used go first. A project with
 * its `node_modules` types is a few thousand.
 */
const MAX_FILES = 20_000;

/** Parsed files by compiler options, parse settings and name, least recently used first. */
const kept = new Map<string, { readonly text: string; readonly file: TS.SourceFile }>();

/**
 * A compiler host that parses each file once per process: a second extraction (`toolpact gen` run
 * again by a watcher, a build step or a test suite in one process) takes the compiler's lib files,
 * `@types/node`, the packages' declarations and every unchanged source as already parsed, and as
 * already bound once a first program has checked them (the compiler binds a file once, whichever
 * program it is in, as its language service does). A file is reused only when its text, the way it
 * is parsed and every compiler option are the same; an edited file is parsed afresh, and a file asked
 * for anew (`shouldCreateNewSourceFile`) is never taken from here.
 *
 * @example
 * const program = ts.createProgram({ rootNames, options, host: sourceFileCachingHost(options) });
 */
export function sourceFileCachingHost(options: TS.CompilerOptions): TS.CompilerHost {
  const host = ts.createCompilerHost(options);
  const parse = host.getSourceFile.bind(host);
  const optionsKey = JSON.stringify(options);
  host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile) => {
    if (shouldCreateNewSourceFile) return parse(fileName, languageVersionOrOptions, onError, true);
    const text = host.readFile(fileName);
    if (text === undefined) return parse(fileName, languageVersionOrOptions, onError);
    const how =
      typeof languageVersionOrOptions === 'object'
        ? [
            languageVersionOrOptions.languageVersion,
            languageVersionOrOptions.impliedNodeFormat,
            languageVersionOrOptions.jsDocParsingMode,
          ]
        : [languageVersionOrOptions];
    const key = `${optionsKey}\u0000${JSON.stringify(how)}\u0000${fileName}`;
    const found = kept.get(key);
    kept.delete(key);
    if (found && found.text === text) {
      kept.set(key, found);
      return found.file;
    }
    // Parsed from the text just read, as the compiler's own host would parse it.
    const file = ts.createSourceFile(fileName, text, languageVersionOrOptions);
    kept.set(key, { text, file });
    if (kept.size > MAX_FILES) kept.delete(kept.keys().next().value as string);
    return file;
  };
  return host;
}
