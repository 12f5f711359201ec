import { dirname, relative, sep } from 'node:path';
import ts from 'typescript';

const FORMAT =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType |
  ts.TypeFormatFlags.WriteArrayAsGenericType;

/**
 * The public surface of each entry file, as the type checker sees it: every name the entry exports,
 * sorted, with its kind and declared type (a function's signatures, a class's or an interface's public
 * members, a type alias's type, a constant's type), one member per line so a change is a small diff.
 *
 * @example
 * const reports = apiReports(resolve('tsconfig.json'), [resolve('src/index.ts')]);
 * reports.get(resolve('src/index.ts')); // '# src/index.ts\n\nclass Registry …'
 */
export function apiReports(tsconfig: string, entries: readonly string[]): Map<string, string> {
  const read = ts.readConfigFile(tsconfig, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(tsconfig));
  const program = ts.createProgram({ rootNames: [...entries], options: { ...parsed.options, noEmit: true } });
  const checker = program.getTypeChecker();
  const root = dirname(tsconfig);
  const reports = new Map<string, string>();
  for (const entry of entries) {
    const source = program.getSourceFile(entry);
    const module = source && checker.getSymbolAtLocation(source);
    if (!source || !module) throw new Error(`${entry} is not a module of the program`);
    const lines = [`# ${relative(root, entry).split(sep).join('/')}`, ''];
    const exported = checker.getExportsOfModule(module).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const symbol of exported) lines.push(...describe(checker, symbol), '');
    // A member keyed by a unique symbol prints as `__@NAME@<id>`, whose id moves with any change to
    // the program: the report names the symbol alone, as `[NAME]`.
    const text = lines.join('\n').replace(/__@([A-Za-z_$][\w$]*)@\d+/g, '[$1]');
    reports.set(entry, `${text.trimEnd()}\n`);
  }
  return reports;
}

/** The names an entry file exports, sorted. */
export function exportedNames(report: string): string[] {
  return [
    ...report.matchAll(/^(?:function|class|interface|type|const|enum|namespace|value) (\S+?)(?:[<:( =]|$)/gm),
  ]
    .map((match) => match[1]!)
    .filter((name, index, all) => all.indexOf(name) === index);
}

function describe(checker: ts.TypeChecker, exported: ts.Symbol): string[] {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const name = exported.name;
  const declaration = symbol.declarations?.[0];
  const lines: string[] = [];
  const typeText = (type: ts.Type) => checker.typeToString(type, declaration, FORMAT);
  if (symbol.flags & ts.SymbolFlags.Function) {
    const type = checker.getTypeOfSymbol(symbol);
    for (const signature of type.getCallSignatures()) {
      lines.push(`function ${name}${checker.signatureToString(signature, declaration, FORMAT)}`);
    }
  }
  if (symbol.flags & ts.SymbolFlags.Class) {
    const classType = checker.getDeclaredTypeOfSymbol(symbol) as ts.InterfaceType;
    const heritage = classType.getBaseTypes?.() ?? [];
    lines.push(`class ${name}${heritage.length ? ` extends ${heritage.map(typeText).join(', ')}` : ''}`);
    const constructors = checker.getTypeOfSymbol(symbol).getConstructSignatures();
    for (const signature of constructors) {
      lines.push(
        `  constructor${checker.signatureToString(signature, declaration, FORMAT).replace(/: [^:]*$/, '')}`,
      );
    }
    lines.push(...members(checker, checker.getTypeOfSymbol(symbol), declaration, '  static ', symbol));
    lines.push(...members(checker, classType, declaration, '  ', symbol));
  } else if (symbol.flags & ts.SymbolFlags.Interface) {
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    const heritage = (type as ts.InterfaceType).getBaseTypes?.() ?? [];
    lines.push(`interface ${name}${heritage.length ? ` extends ${heritage.map(typeText).join(', ')}` : ''}`);
    lines.push(...members(checker, type, declaration, '  ', symbol));
  }
  if (symbol.flags & ts.SymbolFlags.TypeAlias) {
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    const node = declaration && ts.isTypeAliasDeclaration(declaration) ? declaration.type : undefined;
    const text = node
      ? checker.typeToString(
          checker.getTypeFromTypeNode(node),
          declaration,
          FORMAT | ts.TypeFormatFlags.InTypeAlias,
        )
      : typeText(type);
    lines.push(`type ${name} = ${text}`);
  }
  if (symbol.flags & ts.SymbolFlags.Enum) lines.push(`enum ${name}`);
  if (symbol.flags & ts.SymbolFlags.Variable) {
    lines.push(`const ${name}: ${typeText(checker.getTypeOfSymbol(symbol))}`);
  }
  if (lines.length === 0) lines.push(`value ${name}: ${typeText(checker.getTypeOfSymbol(symbol))}`);
  return lines;
}

/** The members a class or an interface declares itself (what it inherits shows in its `extends`). */
function members(
  checker: ts.TypeChecker,
  type: ts.Type,
  at: ts.Node | undefined,
  indent: string,
  owner: ts.Symbol,
): string[] {
  const lines: string[] = [];
  const owners = new Set<ts.Node>(owner.declarations ?? []);
  for (const property of checker.getPropertiesOfType(type)) {
    if (!property.declarations?.some((member) => member.parent && owners.has(member.parent))) continue;
    if (property.name === 'prototype' || property.name.startsWith('#') || property.name.startsWith('__#'))
      continue;
    const flags = property.valueDeclaration ? ts.getCombinedModifierFlags(property.valueDeclaration) : 0;
    if (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) continue;
    const readonly = flags & ts.ModifierFlags.Readonly ? 'readonly ' : '';
    const optional = property.flags & ts.SymbolFlags.Optional ? '?' : '';
    const propertyType = checker.getTypeOfSymbolAtLocation(property, at ?? property.valueDeclaration!);
    if (property.flags & ts.SymbolFlags.Method) {
      for (const signature of propertyType.getCallSignatures()) {
        lines.push(`${indent}${property.name}${optional}${checker.signatureToString(signature, at, FORMAT)}`);
      }
    } else {
      lines.push(
        `${indent}${readonly}${property.name}${optional}: ${checker.typeToString(propertyType, at, FORMAT)}`,
      );
    }
  }
  return lines;
}
