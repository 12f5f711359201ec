import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of a project's files under one folder, as the compiler resolves it: an edge for
 * every import, type-only ones included, whose target is also one of those files.
 */
export interface ModuleGraph {
  /** Absolute paths of the files the graph is over, sorted. */
  readonly files: readonly string[];
  /** For each file, the files it imports (only files of the graph). */
  readonly edges: ReadonlyMap<string, ReadonlySet<string>>;
  /** Relative specifiers the compiler could not resolve: an edge that may be missing. */
  readonly unresolved: readonly { readonly file: string; readonly specifier: string }[];
}

/**
 * Reads the files of `tsconfig` that lie under `folder`, and resolves each module specifier they
 * write with the compiler's own module resolution and the tsconfig's options (so under NodeNext
 * `./a.js` is the `./a.ts` beside it).
 *
 * @example
 * const graph = readModuleGraph(resolve('tsconfig.json'), resolve('src'));
 */
export function readModuleGraph(tsconfig: string, folder: string): ModuleGraph {
  const read = ts.readConfigFile(tsconfig, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(tsconfig));
  if (parsed.errors.length > 0) {
    throw new Error(
      parsed.errors.map((error) => ts.flattenDiagnosticMessageText(error.messageText, '\n')).join('\n'),
    );
  }
  const options = parsed.options;
  const inside = (file: string) => {
    const path = relative(folder, file);
    return path !== '' && path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path);
  };
  const files = parsed.fileNames
    .map((file) => resolve(file))
    .filter(inside)
    .sort();
  const known = new Set(files);
  const cache = ts.createModuleResolutionCache(dirname(tsconfig), (name) => name, options);
  const edges = new Map<string, Set<string>>();
  const unresolved: { file: string; specifier: string }[] = [];
  for (const file of files) {
    const targets = new Set<string>();
    edges.set(file, targets);
    const text = ts.sys.readFile(file);
    if (text === undefined) throw new Error(`cannot read ${file}`);
    const source = ts.createSourceFile(
      file,
      text,
      {
        languageVersion: ts.ScriptTarget.Latest,
        impliedNodeFormat: ts.getImpliedNodeFormatForFile(
          file,
          cache.getPackageJsonInfoCache(),
          ts.sys,
          options,
        ),
      },
      true,
    );
    for (const specifier of moduleSpecifiers(source)) {
      const mode = ts.getModeForUsageLocation(source, specifier, options);
      const { resolvedModule } = ts.resolveModuleName(
        specifier.text,
        file,
        options,
        ts.sys,
        cache,
        undefined,
        mode,
      );
      if (!resolvedModule) {
        if (specifier.text.startsWith('.')) unresolved.push({ file, specifier: specifier.text });
        continue;
      }
      const target = resolve(resolvedModule.resolvedFileName);
      if (known.has(target)) targets.add(target);
    }
  }
  return { files, edges, unresolved };
}

/**
 * Every module specifier a file writes as a string literal: `import` and `import type`, `export … from`,
 * `import x = require(…)`, `import('…')` in a type, and a dynamic `import('…')` call.
 *
 * @example
 * moduleSpecifiers(source).map((specifier) => specifier.text); // ['./a.js', 'typescript']
 */
export function moduleSpecifiers(source: ts.SourceFile): ts.StringLiteralLike[] {
  const found: ts.StringLiteralLike[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteralLike(node.moduleSpecifier)) found.push(node.moduleSpecifier);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteralLike(node.moduleReference.expression)
    ) {
      found.push(node.moduleReference.expression);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteralLike(node.argument.literal)
    ) {
      found.push(node.argument.literal);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push(node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The strongly connected components of the graph (Tarjan's algorithm): sets of files each of which
 * reaches every other. A component of more than one file, or of one file that imports itself, holds
 * a cycle.
 *
 * @example
 * stronglyConnected(graph).filter((component) => component.length > 1);
 */
export function stronglyConnected(graph: ModuleGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.edges.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    components.push(component.sort());
  };
  for (const file of graph.files) if (!index.has(file)) connect(file);
  return components;
}

/**
 * The import cycles of the graph, found through its strongly connected components: for each file in
 * a cycle, the shortest cycle through it, each written once (starting at its first file in sort
 * order, and ending where it started).
 *
 * @example
 * findCycles(graph); // [['/repo/src/a.ts', '/repo/src/b.ts', '/repo/src/a.ts']]
 */
export function findCycles(graph: ModuleGraph): string[][] {
  const cycles = new Map<string, string[]>();
  for (const component of stronglyConnected(graph)) {
    const members = new Set(component);
    for (const start of component) {
      const cycle = shortestCycle(graph, start, members);
      if (!cycle) continue;
      const first = cycle.indexOf([...cycle].sort()[0]!);
      const rotated = [...cycle.slice(first), ...cycle.slice(0, first)];
      rotated.push(rotated[0]!);
      cycles.set(rotated.join('\n'), rotated);
    }
  }
  return [...cycles.values()].sort((a, b) => (a.join('\n') < b.join('\n') ? -1 : 1));
}

/** The shortest path from `start` back to itself within `members` (breadth first), without the return. */
function shortestCycle(
  graph: ModuleGraph,
  start: string,
  members: ReadonlySet<string>,
): string[] | undefined {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const file = queue[head]!;
    for (const target of [...(graph.edges.get(file) ?? [])].sort()) {
      if (target === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return path;
      }
      if (!members.has(target) || previous.has(target)) continue;
      previous.set(target, file);
      queue.push(target);
    }
  }
  return undefined;
}

/**
 * A cycle as a readable path relative to `root`: `src/a.ts → src/b.ts → src/a.ts`.
 *
 * @example
 * formatCycle(['/repo/src/a.ts', '/repo/src/b.ts', '/repo/src/a.ts'], '/repo'); // 'src/a.ts → src/b.ts → src/a.ts'
 */
export function formatCycle(cycle: readonly string[], root: string): string {
  return cycle.map((file) => relative(root, file).split(sep).join('/')).join(' → ');
}

/**
 * How many edges the graph has.
 *
 * @example
 * edgeCount(graph) > 0;
 */
export function edgeCount(graph: ModuleGraph): number {
  let count = 0;
  for (const targets of graph.edges.values()) count += targets.size;
  return count;
}
