import type TS from 'typescript';
import type { Report } from './diagnostics.js';
import { type OwnComment, type ParamDoc, readOwnComment } from './doc-comment.js';
import { applyDocs } from './doc-tags.js';
import ts from './peer.js';
import type { SchemaNode } from './schema-node.js';

/**
 * The description and tags of each positional parameter: its own comment and its `@param` (with the
 * schema tags written after it), together. A `@param` that names no parameter, names one twice, or
 * describes a member of one, and a parameter described both ways, are reported, since one of the texts
 * would not reach the model.
 *
 * @example
 * const docs = positionalDocs(comment.params, fn.parameters, [], 'read_file', report);
 * docs.get('path')?.description;
 */
export function positionalDocs(
  params: readonly ParamDoc[],
  parameters: readonly TS.ParameterDeclaration[],
  hidden: readonly TS.ParameterDeclaration[],
  tool: string,
  report: Report,
): Map<string, OwnComment> {
  const named = parameters.filter((parameter) => ts.isIdentifier(parameter.name));
  const names = named.map((parameter) => (parameter.name as TS.Identifier).text);
  const hiddenNames = hidden.flatMap((parameter) =>
    ts.isIdentifier(parameter.name) ? [parameter.name.text] : [],
  );
  const byName = new Map<string, ParamDoc>();
  for (const doc of params) {
    if (doc.name.includes('.')) {
      report(
        doc.tag,
        'invalid_tag',
        `@param ${doc.name} of tool "${tool}" describes a member of a parameter, which toolpact reads only from the member's own comment in its type; move the text there.`,
      );
    } else if (hiddenNames.includes(doc.name)) {
      report(
        doc.tag,
        'invalid_tag',
        `@param ${doc.name} of tool "${tool}" describes the context parameter, which is not part of the contract the model sees; remove the @param.`,
      );
    } else if (!names.includes(doc.name)) {
      report(
        doc.tag,
        'invalid_tag',
        `@param ${doc.name} names no parameter of tool "${tool}" (its parameters: ${names.join(', ') || 'none'}); correct the name, or remove the @param.`,
      );
    } else if (byName.has(doc.name)) {
      report(
        doc.tag,
        'invalid_tag',
        `parameter "${doc.name}" of tool "${tool}" has a second @param; only one would reach the model, so merge them.`,
      );
    } else {
      byName.set(doc.name, doc);
    }
  }
  for (const parameter of hidden) {
    const what = `the context parameter of tool "${tool}"`;
    const own = readOwnComment(parameter, what, report);
    if (own.description || own.tags.length > 0) {
      report(
        parameter,
        'invalid_tag',
        `${what} has a doc comment, but it is not part of the contract the model sees; remove the comment.`,
      );
    }
  }
  const docs = new Map<string, OwnComment>();
  for (const [index, parameter] of named.entries()) {
    const name = names[index]!;
    const own = readOwnComment(parameter, `parameter "${name}" of tool "${tool}"`, report);
    const doc = byName.get(name);
    if (doc?.description && own.description) reportTwice(doc, `parameter "${name}"`, tool, report);
    docs.set(name, {
      description: own.description || (doc?.description ?? ''),
      tags: [...own.tags, ...(doc?.tags ?? [])],
    });
  }
  return docs;
}

/**
 * Applies the `@param` tags of a tool with one object parameter to the properties of its schema:
 * `@param options.path text` (or `@param path text`) describes the property `path`, with the schema
 * tags written after it. The object itself has no place in the contract (the model sees its
 * properties as the tool's parameters), so text on it is reported, as is a `@param` that names no
 * property.
 *
 * @example
 * applyObjectDocs(schema, comment.params, parameter, 'grep', report);
 */
export function applyObjectDocs(
  schema: SchemaNode,
  params: readonly ParamDoc[],
  parameter: TS.ParameterDeclaration,
  tool: string,
  report: Report,
): void {
  const members = schema.properties as SchemaNode;
  const own = ts.isIdentifier(parameter.name) ? parameter.name.text : undefined;
  const noPlace = `the parameter object of tool "${tool}" has no place in the contract (the model sees its properties as the tool's parameters)`;
  const ownComment = readOwnComment(parameter, `the parameter object of tool "${tool}"`, report);
  if (ownComment.description || ownComment.tags.length > 0) {
    report(
      parameter,
      'invalid_tag',
      `${noPlace}, so its comment would not reach the model; describe the properties in its type, or move the text into the tool's description.`,
    );
  }
  const described = new Set<string>();
  for (const doc of params) {
    const segments = doc.name.split('.');
    const [head, member] = segments;
    const property =
      segments.length === 2 && (own === undefined || head === own)
        ? member
        : segments.length === 1 && head !== own
          ? head
          : undefined;
    if (property === undefined || !Object.hasOwn(members, property)) {
      const itself = segments.length === 1 && (head === own || own === undefined);
      if (itself && !doc.description && doc.tags.length === 0) continue;
      report(
        doc.tag,
        'invalid_tag',
        itself
          ? `@param ${doc.name}: ${noPlace}, so this text would not reach the model; describe the properties (@param ${head}.property text), or move the text into the tool's description.`
          : `@param ${doc.name} names no parameter of tool "${tool}" (its parameters: ${Object.keys(members).join(', ')}); correct the name, or remove the @param.`,
      );
      continue;
    }
    if (described.has(property)) {
      report(
        doc.tag,
        'invalid_tag',
        `parameter "${property}" of tool "${tool}" has a second @param; only one would reach the model, so merge them.`,
      );
      continue;
    }
    described.add(property);
    // A copy: the property's node may also be the body of a type in $defs (a recursive parameter type),
    // where this tool's @param does not apply.
    const node: SchemaNode = { ...(members[property] as SchemaNode) };
    members[property] = node;
    if (doc.description && typeof node.description === 'string') {
      reportTwice(doc, `parameter "${property}"`, tool, report);
    }
    const what = `parameter "${property}" of tool "${tool}"`;
    applyDocs(node, doc, { at: doc.tag, what, path: [property] }, report);
  }
}

function reportTwice(doc: ParamDoc, what: string, tool: string, report: Report): void {
  report(
    doc.tag,
    'invalid_tag',
    `${what} of tool "${tool}" is described twice, by @param ${doc.name} and by its own comment; only one would reach the model, so keep one.`,
  );
}
