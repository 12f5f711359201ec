import type TS from 'typescript';
import { isToolCategory, type ToolExample } from '../contract/index.js';
import type { CallShape, GeneratedContract, GeneratedTool } from '../typed/generated-contracts.js';
import type { Report } from './diagnostics.js';
import { type ParamDoc, readToolComment } from './doc-comment.js';
import { applyDocs, parseValue } from './doc-tags.js';
import { docText } from './doc-text.js';
import type { ToolDeclaration } from './find-tool-declarations.js';
import { applyObjectDocs, positionalDocs } from './parameter-docs.js';
import ts from './peer.js';
import { SchemaBuilder } from './schema-builder.js';
import type { SchemaNode } from './schema-node.js';

/** A tool's generated entry (without its `source`) and the texts its part of the inputs hash is made of. */
export interface ReadTool {
  readonly tool: Omit<GeneratedTool, 'source'>;
  /** The declaration's doc comment and signature, its options, and every source type it uses. */
  readonly inputs: readonly string[];
}

/**
 * Reads one declaration's contract: the description (every paragraph), `@category`, `@returns`,
 * `@example`; the parameters (positional, or the one object parameter) with their descriptions, doc
 * tags and literal defaults; the return type, a `Promise` unwrapped. Problems are reported, and a tool
 * with any problem gives `undefined`.
 *
 * @example
 * const read = readToolContract(declaration, checker, report, isUserFile);
 * if (read) console.log(read.tool.contract.parameters);
 */
export function readToolContract(
  declaration: ToolDeclaration,
  checker: TS.TypeChecker,
  report: Report,
  isUserFile: (file: TS.SourceFile) => boolean,
): ReadTool | undefined {
  let failed = false;
  const tracked: Report = (node, code, message, type) => {
    failed = true;
    report(node, code, message, type);
  };
  const { name, fn } = declaration;
  const docs = readToolComment(declaration.docSources, name, tracked);
  if (!docs.description) {
    tracked(
      declaration.site,
      'missing_description',
      `tool "${name}" has no doc comment. Write one above the function: what it does, when to use it and when not, what each parameter means, and its side effects.`,
    );
  }
  for (const names of [['category'], ['returns', 'return']]) {
    const [, ...extra] = docs.tags.filter((tag) => names.includes(tag.name));
    for (const tag of extra) {
      tracked(
        tag.at ?? declaration.site,
        'invalid_tag',
        `tool "${name}" has more than one @${names[0]}; only the first would reach the model, so keep one.`,
      );
    }
  }
  const categoryTag = docs.tags.find((tag) => tag.name === 'category');
  const tagCategory = categoryTag?.text;
  if (tagCategory !== undefined && !isToolCategory(tagCategory)) {
    tracked(
      categoryTag?.at ?? declaration.site,
      'invalid_tag',
      `@category of tool "${name}" is ${JSON.stringify(tagCategory)}; use one of read, search, write, execute, delegate.`,
    );
  }
  if (declaration.category !== undefined && !isToolCategory(declaration.category)) {
    tracked(
      declaration.site,
      'invalid_tag',
      `the category option of tool "${name}" is ${JSON.stringify(declaration.category)}; use one of read, search, write, execute, delegate.`,
    );
  }
  const category = declaration.category ?? tagCategory;
  if (category === undefined && !declaration.dynamicCategory) {
    tracked(
      declaration.site,
      'missing_category',
      `tool "${name}" has no category: add @category read (or search, write, execute, delegate) to its doc comment, or pass { category } to tool().`,
    );
  }
  const returnsText = docs.tags.find((tag) => tag.name === 'returns' || tag.name === 'return')?.text;
  const examples: ToolExample[] = [];
  for (const tag of docs.tags.filter((tag) => tag.name === 'example')) {
    const value = parseValue(tag.text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      tracked(
        tag.at ?? declaration.site,
        'invalid_tag',
        `@example on tool "${name}" must be a JSON object of arguments, e.g. @example {"path": "README.md"}; received ${JSON.stringify(tag.text.slice(0, 60))}.`,
      );
      continue;
    }
    examples.push({ arguments: value as Record<string, unknown> });
  }

  const parameters = new SchemaBuilder(checker, tracked, isUserFile);
  const { schema, call } = readParameters(declaration, checker, parameters, docs.params, tracked);
  parameters.finish(schema, fn, `tool "${name}"`);

  const returns = new SchemaBuilder(checker, tracked, isUserFile);
  const returnSchema = readReturn(declaration, checker, returns);
  if (returnSchema) returns.finish(returnSchema, fn.type ?? fn, `the result of tool "${name}"`);

  if (failed) return undefined;
  const contract: GeneratedContract = {
    name,
    ...(declaration.title ? { title: declaration.title } : {}),
    description: docs.description,
    ...(isToolCategory(category) ? { category } : {}),
    parameters: schema,
    ...(returnsText || returnSchema
      ? {
          returns: {
            ...(returnsText ? { description: docText(returnsText) } : {}),
            ...(returnSchema ? { schema: returnSchema } : {}),
          },
        }
      : {}),
    ...(examples.length ? { examples } : {}),
  };
  const inputs = [
    `tool ${name}`,
    ...docs.comments,
    signatureText(fn),
    declaration.options?.getText() ?? '',
    ...[...parameters.declarations, ...returns.declarations].map((node) => node.getFullText().trim()),
  ];
  return {
    tool: { contract, call, ...(parameters.dates.length ? { dates: parameters.dates } : {}) },
    inputs,
  };
}

function readParameters(
  declaration: ToolDeclaration,
  checker: TS.TypeChecker,
  builder: SchemaBuilder,
  params: readonly ParamDoc[],
  report: Report,
): { schema: SchemaNode; call: CallShape } {
  const { name, fn } = declaration;
  let list = fn.parameters.filter(
    (parameter) => !(ts.isIdentifier(parameter.name) && parameter.name.text === 'this'),
  );
  const last = list[list.length - 1];
  const context = last !== undefined && isExecuteContext(checker.getTypeAtLocation(last));
  const hidden = context ? [last] : [];
  if (context) list = list.slice(0, -1);
  for (const parameter of list) {
    if (parameter.dotDotDotToken) {
      report(
        parameter,
        'unsupported_declaration',
        `tool "${name}" has a rest parameter; the model sends named arguments, so declare each parameter, or one object parameter.`,
      );
    }
  }
  const only = list.length === 1 ? list[0]! : undefined;
  if (only && isObjectParameter(only, checker)) {
    const type = checker.getNonNullableType(checker.getTypeAtLocation(only));
    const root = builder.convert(type, {
      at: only,
      what: `the parameter object of tool "${name}"`,
      path: [],
    });
    if (root.type !== 'object' || typeof root.properties !== 'object') {
      report(
        only,
        'unsupported_declaration',
        `the parameter object of tool "${name}" must be a plain object type with named properties.`,
      );
      return { schema: { type: 'object', properties: {} }, call: { style: 'object', context } };
    }
    const schema: SchemaNode = { ...root, properties: { ...(root.properties as SchemaNode) } };
    applyObjectDocs(schema, params, only, name, report);
    if (ts.isObjectBindingPattern(only.name)) applyBindingDefaults(schema, only.name, checker, report, name);
    return { schema, call: { style: 'object', context } };
  }
  const docs = positionalDocs(params, list, hidden, name, report);
  const properties: SchemaNode = {};
  const required: string[] = [];
  const names: string[] = [];
  for (const parameter of list) {
    if (!ts.isIdentifier(parameter.name)) {
      report(
        parameter,
        'unsupported_declaration',
        `tool "${name}" destructures a parameter beside others; the model fills named parameters, so give it a name (or make it the only, object parameter).`,
      );
      continue;
    }
    const parameterName = parameter.name.text;
    if (parameterName === '__proto__') {
      report(
        parameter,
        'unsupported_declaration',
        `tool "${name}" has a parameter named "__proto__", which no call can send; rename it.`,
      );
      continue;
    }
    const site = {
      at: parameter,
      what: `parameter "${parameterName}" of tool "${name}"`,
      path: [parameterName],
      typeNode: parameter.type,
    };
    const type = checker.getTypeAtLocation(parameter);
    const node = builder.convert(type, site);
    applyDocs(node, docs.get(parameterName)!, site, report);
    if (parameter.initializer) {
      const value = literal(parameter.initializer, checker);
      if (value.ok) node.default = value.value;
    }
    const optional = Boolean(parameter.questionToken || parameter.initializer) || includesUndefined(type);
    properties[parameterName] = node;
    names.push(parameterName);
    if (!optional) required.push(parameterName);
  }
  const schema: SchemaNode = { type: 'object', properties };
  if (required.length) schema.required = required;
  schema.additionalProperties = false;
  return { schema, call: { style: 'positional', parameters: names, context } };
}

function readReturn(
  declaration: ToolDeclaration,
  checker: TS.TypeChecker,
  builder: SchemaBuilder,
): SchemaNode | undefined {
  const { fn, name } = declaration;
  const signature = checker.getSignatureFromDeclaration(fn);
  if (!signature) return undefined;
  const declared = checker.getReturnTypeOfSignature(signature);
  const type = checker.getAwaitedType(declared) ?? declared;
  const nothing = ts.TypeFlags.Void | ts.TypeFlags.Undefined | ts.TypeFlags.Never | ts.TypeFlags.Unknown;
  if (type.flags & nothing) return undefined;
  if (
    type.flags & ts.TypeFlags.Union &&
    (type as TS.UnionType).types.every((member) => member.flags & nothing)
  ) {
    return undefined;
  }
  return builder.convert(type, {
    at: fn.type ?? fn.name ?? fn,
    what: `the result of tool "${name}"`,
    path: undefined,
  });
}

function applyBindingDefaults(
  schema: SchemaNode,
  pattern: TS.ObjectBindingPattern,
  checker: TS.TypeChecker,
  report: Report,
  tool: string,
): void {
  const properties = schema.properties as SchemaNode;
  let required = Array.isArray(schema.required) ? [...(schema.required as string[])] : [];
  for (const element of pattern.elements) {
    if (!element.initializer) continue;
    const key = element.propertyName ?? element.name;
    if (!(ts.isIdentifier(key) || ts.isStringLiteral(key))) continue;
    const value = literal(element.initializer, checker);
    if (!value.ok || !Object.hasOwn(properties, key.text)) continue;
    if (required.includes(key.text)) {
      report(
        element,
        'unsupported_declaration',
        `property "${key.text}" of tool "${tool}" has a default but is required by its type; mark it optional (${key.text}?) in the type.`,
      );
      continue;
    }
    properties[key.text] = { ...(properties[key.text] as SchemaNode), default: value.value };
    required = required.filter((entry) => entry !== key.text);
  }
  if (required.length) schema.required = required;
  else delete schema.required;
}

/** One object parameter whose properties are the tool's parameters (a Record or an array is not one). */
function isObjectParameter(parameter: TS.ParameterDeclaration, checker: TS.TypeChecker): boolean {
  const type = checker.getNonNullableType(checker.getTypeAtLocation(parameter));
  if (ts.isObjectBindingPattern(parameter.name)) return true;
  if (!(type.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection))) return false;
  if (checker.isArrayType(type) || checker.isTupleType(type)) return false;
  if (type.getCallSignatures().length > 0) return false;
  const symbol = type.getSymbol();
  if (symbol?.getName() === 'Date') return false;
  return checker.getPropertiesOfType(type).length > 0;
}

function isExecuteContext(type: TS.Type): boolean {
  const symbol = type.aliasSymbol ?? type.getSymbol();
  return symbol?.getName() === 'ToolExecuteContext';
}

function includesUndefined(type: TS.Type): boolean {
  if (type.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return true;
  return (
    Boolean(type.flags & ts.TypeFlags.Union) &&
    (type as TS.UnionType).types.some((member) => member.flags & ts.TypeFlags.Undefined)
  );
}

type Literal = { ok: true; value: unknown } | { ok: false };

/** The value of a literal initializer (strings, numbers, booleans, null, enum members, arrays and objects of them). */
function literal(node: TS.Expression, checker: TS.TypeChecker): Literal {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
    return { ok: true, value: node.text };
  if (ts.isNumericLiteral(node)) return { ok: true, value: Number(node.text) };
  if (node.kind === ts.SyntaxKind.TrueKeyword) return { ok: true, value: true };
  if (node.kind === ts.SyntaxKind.FalseKeyword) return { ok: true, value: false };
  if (node.kind === ts.SyntaxKind.NullKeyword) return { ok: true, value: null };
  if (
    ts.isPrefixUnaryExpression(node) &&
    node.operator === ts.SyntaxKind.MinusToken &&
    ts.isNumericLiteral(node.operand)
  ) {
    return { ok: true, value: -Number(node.operand.text) };
  }
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) {
    return literal(node.expression, checker);
  }
  if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
    const value = checker.getConstantValue(node);
    return value === undefined ? { ok: false } : { ok: true, value };
  }
  if (ts.isArrayLiteralExpression(node)) {
    const values: unknown[] = [];
    for (const element of node.elements) {
      const value = literal(element, checker);
      if (!value.ok) return value;
      values.push(value.value);
    }
    return { ok: true, value: values };
  }
  if (ts.isObjectLiteralExpression(node)) {
    const value: Record<string, unknown> = {};
    for (const property of node.properties) {
      if (!ts.isPropertyAssignment(property)) return { ok: false };
      const key =
        ts.isIdentifier(property.name) || ts.isStringLiteral(property.name) ? property.name.text : undefined;
      const inner = key === undefined ? { ok: false as const } : literal(property.initializer, checker);
      if (!inner.ok || key === undefined) return { ok: false };
      value[key] = inner.value;
    }
    return { ok: true, value };
  }
  return { ok: false };
}

function signatureText(fn: TS.SignatureDeclaration & { body?: TS.Node }): string {
  const source = fn.getSourceFile().text;
  return source.slice(fn.getStart(), fn.body ? fn.body.getStart() : fn.getEnd()).trim();
}
