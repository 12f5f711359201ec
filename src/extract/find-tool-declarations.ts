import type TS from 'typescript';
import type { Report } from './diagnostics.js';
import ts from './peer.js';

/** A function-like node the contract is read from. */
export type ToolFunction =
  | TS.FunctionDeclaration
  | TS.FunctionExpression
  | TS.ArrowFunction
  | TS.MethodDeclaration;

/** One `tool(fn, options)` call or `@tool(options)` decorator found in the source. */
export interface ToolDeclaration {
  /** The name the run time will use: `options.name`, else the function's or method's own name. */
  readonly name: string;
  readonly fn: ToolFunction;
  /** The call or decorator, where the declaration is reported. */
  readonly site: TS.Node;
  /**
   * The nodes a doc comment describing the tool may be attached to, nearest the function first: the
   * function itself, the `const` it is assigned to, the `tool(…)` call, and what holds the call.
   */
  readonly docSources: readonly TS.Node[];
  /** The options object literal, when it is one. */
  readonly options: TS.ObjectLiteralExpression | undefined;
  /** A literal `category` option, when there is one. */
  readonly category: string | undefined;
  /** True when `category` is given but not as a literal (the run time decides). */
  readonly dynamicCategory: boolean;
  readonly title: string | undefined;
  /** The module specifier the source imports `tool` from, resolved to a file when relative. */
  readonly importedFrom: { readonly specifier: string; readonly file: TS.SourceFile } | undefined;
}

// The declaring file of toolpact's own `tool`, in this repository or in an installed package.
const TOOL_FILE = /[\\/]typed[\\/]tool\.(?:d\.)?[cm]?[jt]s$/;

/**
 * Finds the type-first tools of `file`: calls of toolpact's `tool(fn, options)` and methods decorated
 * with `@tool(options)`, recognised through the checker (so an aliased import works and an unrelated
 * function named `tool` does not count). Anything that cannot be read statically is reported.
 *
 * @example
 * const declarations = findToolDeclarations(program.getSourceFile('src/tools.ts')!, checker, report);
 */
export function findToolDeclarations(
  file: TS.SourceFile,
  checker: TS.TypeChecker,
  report: Report,
): ToolDeclaration[] {
  const found: ToolDeclaration[] = [];
  const visit = (node: TS.Node): void => {
    if (ts.isCallExpression(node) && isToolpactTool(node.expression, checker)) {
      const declaration = ts.isDecorator(node.parent)
        ? fromDecorator(node, node.parent, checker, report)
        : fromCall(node, checker, report);
      if (declaration) found.push(declaration);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function isToolpactTool(callee: TS.Expression, checker: TS.TypeChecker): boolean {
  let symbol = checker.getSymbolAtLocation(callee);
  if (!symbol) return false;
  if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return (
    symbol.getName() === 'tool' &&
    (symbol.declarations ?? []).some(
      (declaration) =>
        ts.isFunctionDeclaration(declaration) && TOOL_FILE.test(declaration.getSourceFile().fileName),
    )
  );
}

function fromCall(
  call: TS.CallExpression,
  checker: TS.TypeChecker,
  report: Report,
): ToolDeclaration | undefined {
  const [target, optionsNode] = call.arguments;
  if (!target) return undefined;
  // `tool({ ... })` outside a decorator position: a decorator kept in a variable, which cannot be read.
  if (ts.isObjectLiteralExpression(target)) {
    report(
      call,
      'unsupported_declaration',
      'tool({ ... }) is read only where it decorates a method: write @tool({ ... }) directly above the method.',
    );
    return undefined;
  }
  const options = optionsNode && ts.isObjectLiteralExpression(optionsNode) ? optionsNode : undefined;
  const facts = readOptions(options, report);
  const enclosing = enclosingDeclaration(call);
  let fn: ToolFunction | undefined;
  let ownName: string | undefined;
  const docSources: TS.Node[] = [];
  if (ts.isArrowFunction(target) || ts.isFunctionExpression(target)) {
    fn = target;
    ownName = ts.isFunctionExpression(target) ? target.name?.text : undefined;
    docSources.push(target);
  } else if (ts.isIdentifier(target)) {
    let symbol = checker.getSymbolAtLocation(target);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const declaration = symbol?.valueDeclaration ?? symbol?.declarations?.[0];
    if (declaration && ts.isFunctionDeclaration(declaration) && declaration.body) {
      fn = declaration;
      ownName = declaration.name?.text;
      docSources.push(declaration);
    } else if (
      declaration &&
      ts.isVariableDeclaration(declaration) &&
      declaration.initializer &&
      (ts.isArrowFunction(declaration.initializer) || ts.isFunctionExpression(declaration.initializer))
    ) {
      fn = declaration.initializer;
      docSources.push(fn);
      ownName =
        ts.isFunctionExpression(fn) && fn.name
          ? fn.name.text
          : ts.isIdentifier(declaration.name)
            ? declaration.name.text
            : undefined;
      docSources.push(declaration);
    }
  }
  if (!fn) {
    report(
      target,
      'unsupported_declaration',
      `tool() needs a function it can read: a function declaration, an arrow or function expression, or the name of one; received ${target.getText().slice(0, 60)}.`,
    );
    return undefined;
  }
  docSources.push(call);
  if (enclosing) docSources.push(enclosing);
  const name = facts.name ?? ownName;
  if (!name) {
    report(
      call,
      'invalid_name',
      'this tool() wraps an anonymous function; give it a name: tool(fn, { name: "verb_noun", ... }).',
    );
    return undefined;
  }
  if (name === '__proto__') {
    report(call, 'invalid_name', 'a tool cannot be named "__proto__"; give it a verb_noun name.');
    return undefined;
  }
  return {
    name,
    fn,
    site: call,
    docSources,
    options,
    category: facts.category,
    dynamicCategory: facts.dynamicCategory,
    title: facts.title,
    importedFrom: importOf(call.expression, checker),
  };
}

function fromDecorator(
  call: TS.CallExpression,
  decorator: TS.Decorator,
  checker: TS.TypeChecker,
  report: Report,
): ToolDeclaration | undefined {
  const method = decorator.parent;
  if (!ts.isMethodDeclaration(method) || !method.body) {
    report(
      decorator,
      'unsupported_declaration',
      '@tool() marks class methods with a body; put it directly above a method.',
    );
    return undefined;
  }
  const [optionsNode] = call.arguments;
  const options = optionsNode && ts.isObjectLiteralExpression(optionsNode) ? optionsNode : undefined;
  const facts = readOptions(options, report);
  const ownName =
    ts.isIdentifier(method.name) || ts.isStringLiteral(method.name) ? method.name.text : undefined;
  const name = facts.name ?? ownName;
  if (!name) {
    report(
      method.name,
      'invalid_name',
      '@tool() needs a method with a plain name, or { name: "verb_noun" } in its options.',
    );
    return undefined;
  }
  return {
    name,
    fn: method,
    site: decorator,
    docSources: [method],
    options,
    category: facts.category,
    dynamicCategory: facts.dynamicCategory,
    title: facts.title,
    importedFrom: importOf(call.expression, checker),
  };
}

interface OptionFacts {
  name?: string;
  category?: string;
  dynamicCategory: boolean;
  title?: string;
}

function readOptions(options: TS.ObjectLiteralExpression | undefined, report: Report): OptionFacts {
  const facts: OptionFacts = { dynamicCategory: false };
  for (const property of options?.properties ?? []) {
    const key =
      property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))
        ? property.name.text
        : undefined;
    if (key !== 'name' && key !== 'category' && key !== 'title') continue;
    const value = ts.isPropertyAssignment(property) ? literalString(property.initializer) : undefined;
    if (value === undefined) {
      if (key === 'category') facts.dynamicCategory = true;
      else if (key === 'name') {
        report(
          property,
          'invalid_name',
          'the name option must be a string literal, so toolpact gen can key the contract by it.',
        );
      }
      continue;
    }
    facts[key] = value;
  }
  return facts;
}

function literalString(node: TS.Expression): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isParenthesizedExpression(node)) {
    return literalString(node.expression);
  }
  return undefined;
}

/**
 * What holds a `tool(…)` call and may carry the tool's doc comment: the variable it initialises, the
 * property it is the value of, or the `export default` it is.
 */
function enclosingDeclaration(call: TS.CallExpression): TS.Node | undefined {
  let parent = call.parent;
  while (
    parent &&
    (ts.isParenthesizedExpression(parent) || ts.isSatisfiesExpression(parent) || ts.isAsExpression(parent))
  ) {
    parent = parent.parent;
  }
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) return parent;
  if (parent && (ts.isExportAssignment(parent) || ts.isExpressionStatement(parent))) return parent;
  return undefined;
}

function importOf(callee: TS.Expression, checker: TS.TypeChecker): ToolDeclaration['importedFrom'] {
  const symbol = checker.getSymbolAtLocation(callee);
  const declaration = symbol?.declarations?.[0];
  if (!declaration || !ts.isImportSpecifier(declaration)) return undefined;
  const importDeclaration = declaration.parent.parent.parent;
  if (!ts.isImportDeclaration(importDeclaration) || !ts.isStringLiteral(importDeclaration.moduleSpecifier))
    return undefined;
  return { specifier: importDeclaration.moduleSpecifier.text, file: declaration.getSourceFile() };
}
