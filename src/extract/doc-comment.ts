import type TS from 'typescript';
import type { Report } from './diagnostics.js';
import { type DocTag, SCHEMA_TAGS } from './doc-tags.js';
import { docText } from './doc-text.js';
import ts from './peer.js';

/**
 * The tags a tool's own doc comment carries besides `@param` and the schema tags of a parameter:
 * `@category`, `@returns` (and its synonym `@return`), and `@example` as a JSON object of arguments.
 *
 * @example
 * TOOL_TAGS.includes('category'); // true
 */
export const TOOL_TAGS: readonly string[] = ['category', 'returns', 'return', 'example'];

const READ_TAGS = [...new Set(['param', ...TOOL_TAGS, ...Object.keys(SCHEMA_TAGS)])];

/** What one `@param` says: its text, and the schema tags written after it. */
export interface ParamDoc {
  /** The name as written: `path`, or `options.path` for a member of the parameter object. */
  readonly name: string;
  readonly tag: TS.JSDocParameterTag;
  readonly description: string;
  readonly tags: DocTag[];
}

/** A tool's doc comment as toolpact reads it. */
export interface ToolComment {
  readonly description: string;
  /** The tool-level tags, in order (`@category`, `@returns`, `@example`). */
  readonly tags: readonly DocTag[];
  readonly params: readonly ParamDoc[];
  /** The text of every doc comment found for the tool, for the inputs hash. */
  readonly comments: readonly string[];
}

/** A doc comment that belongs to a parameter or property itself: its text and its tags. */
export interface OwnComment {
  readonly description: string;
  readonly tags: readonly DocTag[];
}

/**
 * Reads a tool's doc comment from the first of `hosts` that has one: the function itself, the
 * `const` it is assigned to, the `export default` or the property holding the `tool(…)` call.
 * Each `@param` keeps the schema tags written after it (`@param pattern A regex. @minLength 1`,
 * where the compiler sees `@minLength` as a tag of the function); `@example` joins a `@param` only
 * when written on the same line as its text, and otherwise is the tool's. Whatever would not reach
 * the contract is reported: a second doc comment, a schema tag after no `@param`, a tag toolpact does
 * not read.
 *
 * @example
 * const comment = readToolComment([declaration.fn, variableDeclaration], 'read_file', report);
 * comment.params.find((param) => param.name === 'path')?.description;
 */
export function readToolComment(hosts: readonly TS.Node[], tool: string, report: Report): ToolComment {
  const seen = new Set<number>();
  const found: TS.JSDoc[] = [];
  for (const host of hosts) {
    for (const doc of commentsOf(host)) {
      if (seen.has(doc.pos)) continue;
      seen.add(doc.pos);
      found.push(doc);
    }
  }
  const [read, ...unread] = found;
  for (const doc of unread) {
    report(
      doc,
      'unsupported_declaration',
      `tool "${tool}" has a second doc comment here; toolpact reads only the one at line ${lineOf(read!)}, so this one would not reach the model. Merge the two into one.`,
    );
  }
  const comments = found.map((doc) => doc.getText());
  if (!read) return { description: '', tags: [], params: [], comments };
  const tags: DocTag[] = [];
  const params: ParamDoc[] = [];
  let anchor: ParamDoc | undefined;
  for (const tag of read.tags ?? []) {
    const name = tag.tagName.text;
    const text = commentText(tag.comment);
    if (ts.isJSDocParameterTag(tag)) {
      // `@param path - The path.` (the TSDoc form): the hyphen separates, it is not the text.
      const description = docText(text.replace(/^-\s+/, ''));
      anchor = { name: entityName(tag.name), tag, description, tags: [] };
      params.push(anchor);
      continue;
    }
    const schemaTag = Object.hasOwn(SCHEMA_TAGS, name) && (name !== 'example' || isInline(tag));
    if (schemaTag && anchor) {
      anchor.tags.push({ name, text, at: tag });
      continue;
    }
    if (schemaTag && !TOOL_TAGS.includes(name)) {
      report(
        tag,
        'invalid_tag',
        `@${name} in the doc comment of tool "${tool}" belongs to no parameter; write it after the @param it constrains (@param count How many. @${name} …), or in that parameter's own comment.`,
      );
      continue;
    }
    anchor = undefined;
    if (TOOL_TAGS.includes(name)) tags.push({ name, text, at: tag });
    else reportUnread(tag, `the doc comment of tool "${tool}"`, report);
  }
  return { description: docText(commentText(read.comment)), tags, params, comments };
}

/**
 * The doc comment written on a parameter or property itself (`/** How many. @minimum 1 *\/ count`):
 * its text and its tags. A tag that is not a schema tag is reported, since it would not reach the
 * contract.
 *
 * @example
 * const own = readOwnComment(parameter, `parameter "count" of tool "tally"`, report);
 */
export function readOwnComment(node: TS.Node, what: string, report: Report): OwnComment {
  const doc = commentsOf(node)[0];
  if (!doc) return { description: '', tags: [] };
  const tags: DocTag[] = [];
  for (const tag of doc.tags ?? []) {
    const name = tag.tagName.text;
    if (Object.hasOwn(SCHEMA_TAGS, name)) tags.push({ name, text: commentText(tag.comment), at: tag });
    else reportUnread(tag, `the comment of ${what}`, report);
  }
  return { description: docText(commentText(doc.comment)), tags };
}

/** Reports a tag toolpact does not read at all. */
function reportUnread(tag: TS.JSDocTag, where: string, report: Report): void {
  const name = tag.tagName.text;
  report(
    tag,
    'invalid_tag',
    `@${name} in ${where} is not a tag toolpact reads, so its text would not reach the model; put what it says into the description, or remove it. The tags read: ${READ_TAGS.map((entry) => `@${entry}`).join(' ')}.`,
  );
}

/** A doc comment's or tag's text as written, links kept in their source form (`{@link read_file}`). */
function commentText(comment: string | TS.NodeArray<TS.JSDocComment> | undefined): string {
  return (ts.getTextOfJSDocComment(comment) ?? '').trim();
}

/**
 * The doc comments attached to `host`, nearest first (the one the compiler treats as its doc). The
 * compiler attaches none to a call (`[/** … *\/ tool(…)]`) nor to a comment between a method's
 * decorators and the method; those are parsed on their own, at their place in the file, so what is
 * reported about them points into the file.
 */
function commentsOf(host: TS.Node): TS.JSDoc[] {
  if (ts.isCallExpression(host)) return commentAt(host.getSourceFile(), host.getFullStart());
  const attached = ts
    .getJSDocCommentsAndTags(host)
    .filter(ts.isJSDoc)
    .sort((a, b) => b.pos - a.pos);
  const decorators = ts.canHaveDecorators(host) ? (ts.getDecorators(host) ?? []) : [];
  const last = decorators[decorators.length - 1];
  return last ? [...commentAt(host.getSourceFile(), last.end), ...attached] : attached;
}

/** The doc comment that ends the comments starting at `position`, parsed alone. */
function commentAt(file: TS.SourceFile, position: number): TS.JSDoc[] {
  const last = ts.getLeadingCommentRanges(file.text, position)?.at(-1);
  const text = last ? file.text.slice(last.pos, last.end) : '';
  if (!last || !text.startsWith('/**') || text === '/**/') return [];
  const padding = file.text.slice(0, last.pos).replace(/[^\r\n]/g, ' ');
  const alone = ts.createSourceFile(file.fileName, `${padding}${text}\n0;`, ts.ScriptTarget.Latest, true);
  const [statement] = alone.statements;
  return statement ? ts.getJSDocCommentsAndTags(statement).filter(ts.isJSDoc) : [];
}

function entityName(name: TS.EntityName): string {
  return ts.isIdentifier(name) ? name.text : `${entityName(name.left)}.${name.right.text}`;
}

/** A tag written after other text on its line, as `@minLength 1` in `@param pattern A regex. @minLength 1`. */
function isInline(tag: TS.JSDocTag): boolean {
  const file = tag.getSourceFile();
  const start = tag.getStart(file);
  const { line } = file.getLineAndCharacterOfPosition(start);
  const before = file.text.slice(file.getPositionOfLineAndCharacter(line, 0), start);
  return !/^\s*(?:\/\*\*|\*)?\s*$/.test(before);
}

function lineOf(node: TS.Node): number {
  const file = node.getSourceFile();
  return file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
}
