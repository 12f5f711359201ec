import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { extractContracts, SCHEMA_TAGS, TOOL_TAGS } from '../../src/extract/index.js';
import type { GeneratedContracts } from '../../src/typed/index.js';
import { FIXTURES_DIR, GENERATED, PROJECT_DIR } from './support.js';

// The fixture that holds every supported tag in every place a doc comment may sit; its golden contract
// is checked by fixtures.test.ts with the others. Here: that it really uses every tag everywhere, and
// that every tag it uses reaches the contract.
const FIXTURE = join(FIXTURES_DIR, 'comment-positions.ts');

/** Where a tool's comment may sit, and where a parameter's may. */
const TOOL_POSITIONS = [
  'declaration',
  'const',
  'inline function',
  'inline arrow',
  'method',
  'default export',
  'destructured object parameter',
] as const;
const MEMBER_POSITIONS = ['property comment', 'parameter comment'] as const;
type Position = (typeof TOOL_POSITIONS)[number] | (typeof MEMBER_POSITIONS)[number];

const schemaTags = Object.keys(SCHEMA_TAGS);

/** The position of a doc comment, from the node the compiler attached it to. */
function positionOf(host: ts.Node): Position | undefined {
  if (ts.isParameter(host)) return 'parameter comment';
  if (ts.isPropertySignature(host)) return 'property comment';
  if (ts.isMethodDeclaration(host)) return 'method';
  if (ts.isExportAssignment(host)) return 'default export';
  if (ts.isFunctionDeclaration(host)) {
    const [only] = host.parameters;
    return only && ts.isObjectBindingPattern(only.name) ? 'destructured object parameter' : 'declaration';
  }
  if (ts.isVariableStatement(host)) {
    const initializer = host.declarationList.declarations[0]?.initializer;
    if (initializer && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer)))
      return 'const';
    const target = initializer && ts.isCallExpression(initializer) ? initializer.arguments[0] : undefined;
    if (target && ts.isFunctionExpression(target)) return 'inline function';
    if (target && ts.isArrowFunction(target)) return 'inline arrow';
  }
  return undefined;
}

/** The tags written in each position of the fixture, as the compiler parses them. */
function tagsByPosition(): Map<Position, Set<string>> {
  const file = ts.createSourceFile(FIXTURE, readFileSync(FIXTURE, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found = new Map<Position, Set<string>>();
  const visit = (node: ts.Node): void => {
    for (const doc of ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc)) {
      if (doc.parent !== node) continue;
      const position = positionOf(node);
      if (!position) continue;
      const tags = found.get(position) ?? new Set<string>();
      for (const tag of doc.tags ?? []) tags.add(tag.tagName.text);
      found.set(position, tags);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

type JsonObject = Record<string, unknown>;

let contracts: GeneratedContracts;
beforeAll(() => {
  const result = extractContracts({ files: [FIXTURE], output: GENERATED });
  if (!result.ok) throw new Error(JSON.stringify(result.diagnostics, null, 2));
  contracts = result.contracts;
});

describe('the comment-positions fixture', () => {
  const found = tagsByPosition();

  test.each(TOOL_POSITIONS)(
    'a tool comment in position "%s" uses every tool tag and every schema tag',
    (position) => {
      const tags = found.get(position) ?? new Set<string>();
      const wanted = [
        'param',
        ...TOOL_TAGS.filter((tag) => tag !== 'return' && tag !== 'returns'),
        ...schemaTags,
      ];
      expect(wanted.filter((tag) => !tags.has(tag))).toEqual([]);
      expect(tags.has('returns') || tags.has('return')).toBe(true);
    },
  );

  test.each(MEMBER_POSITIONS)('position "%s" uses every schema tag', (position) => {
    const tags = found.get(position) ?? new Set<string>();
    expect(schemaTags.filter((tag) => !tags.has(tag))).toEqual([]);
  });

  test('every supported tag is used somewhere, and no other tag is', () => {
    const used = new Set([...found.values()].flatMap((tags) => [...tags]));
    const supported = new Set(['param', ...TOOL_TAGS, ...schemaTags]);
    expect([...supported].filter((tag) => !used.has(tag))).toEqual([]);
    expect([...used].filter((tag) => !supported.has(tag))).toEqual([]);
  });

  test('every tag it uses reaches the contract of every tool, and each position gives the same contract', () => {
    const tools = Object.values(contracts.tools);
    expect(tools).toHaveLength(TOOL_POSITIONS.length + MEMBER_POSITIONS.length);
    // The keyword each schema tag becomes: its own name, but for these two.
    const keyword = (tag: string) => (tag === 'integer' ? 'type' : tag === 'example' ? 'examples' : tag);
    for (const { contract } of tools) {
      const properties = Object.values(
        (contract.parameters as { properties: Record<string, Record<string, unknown>> }).properties,
      );
      const keywords = new Set(properties.flatMap((property) => Object.keys(property)));
      expect(
        schemaTags.filter((tag) => !keywords.has(keyword(tag))),
        contract.name,
      ).toEqual([]);
      expect(properties.some((property) => property.type === 'integer')).toBe(true);
      expect(properties.every((property) => typeof property.description === 'string')).toBe(true);
      expect(contract.category).toBe('read');
      expect(contract.returns?.description).toBe('The tally as one line.');
      expect(contract.examples).toEqual([{ arguments: { label: 'abc', tags: ['a'] } }]);
    }
    const shapes = new Set(tools.map(({ contract }) => JSON.stringify(contract.parameters)));
    expect(shapes.size).toBe(1);
  });
});

describe('the forms of tool() read their doc comment whole', () => {
  const INDEX = join(PROJECT_DIR, 'src', 'index.js');
  const COMMENT = `/**
 * Read a text file.
 *
 * @category read
 * @param path File path relative to the root. @minLength 1
 * @param mode - Text, or one string per line.
 * @returns The text that was read.
 */`;
  const PATH = { type: 'string', description: 'File path relative to the root.', minLength: 1 };
  const MODE = { type: 'string', description: 'Text, or one string per line.', default: 'text' };
  const ARROW = `(path: string, mode: string = 'text') => path + mode`;
  // One file per form, all read in one compiler program; the tool in each is named after its form.
  const FORMS: Record<string, string> = {
    inline_function: `${COMMENT}\nexport const readText = tool(function read_inline_function(path: string, mode: string = 'text') { return path + mode; }, { contracts });`,
    inline_arrow: `${COMMENT}\nexport const readText = tool(${ARROW}, { name: 'read_inline_arrow', contracts });`,
    default_export: `${COMMENT}\nexport default tool(function read_default_export(path: string, mode: string = 'text') { return path + mode; }, { contracts });`,
    property: `export const tools = {\n${COMMENT}\n  read: tool(${ARROW}, { name: 'read_property', contracts }),\n};`,
    before_call: `export const tools = [\n${COMMENT}\n  tool(${ARROW}, { name: 'read_before_call', contracts }),\n];`,
    after_decorator: `export class Files {\n  @tool({ contracts })\n${COMMENT}\n  read_after_decorator(path: string, mode: string = 'text') { return path + mode; }\n}`,
    example: `/**
 * Find text.
 *
 * @category search
 * @param path What to look for. @minLength 1 @example "TODO"
 * @example {"path": "FIXME"}
 */
export function read_example(path: string) { return path; }
export const findText = tool(read_example, { contracts });`,
    recursive: `export interface Folder {
  name: string;
  children: Folder[];
}
/**
 * Create a folder tree.
 *
 * @category write
 * @param root.name The top folder's name. @minLength 1
 */
export function read_recursive(root: Folder) { return root.name; }
export const createTree = tool(read_recursive, { contracts });`,
  };
  const PROBLEMS: Record<string, string> = {
    shared_type: `/** A note. */
export interface Note {
  /** The text. @see the style guide */
  text: string;
}
/**
 * Keep a note.
 *
 * @category write
 */
export function keep_note(note: Note): Note { return note; }
/**
 * Show a note.
 *
 * @category read
 */
export function show_note(note: Note) { return note.text; }
export const keepNote = tool(keep_note, { contracts });
export const showNote = tool(show_note, { contracts });`,
    no_param: `/**
 * Find text. @minLength 1
 *
 * @category search
 */
export function find_text(pattern: string) { return pattern; }
export const findText = tool(find_text, { contracts });`,
  };

  let dir: string;
  let forms: GeneratedContracts;
  let problems: readonly { code: string; file: string; line: number; column: number; message: string }[];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolpact-comments-'));
    const write = (sources: Record<string, string>) =>
      Object.entries(sources).map(([name, source]) => {
        writeFileSync(
          join(dir, `${name}.ts`),
          `import { tool } from ${JSON.stringify(INDEX)};\nimport contracts from './contracts.generated.js';\n${source}`,
        );
        return `${name}.ts`;
      });
    const good = extractContracts({ files: write(FORMS), output: 'contracts.generated.ts', cwd: dir });
    if (!good.ok) throw new Error(JSON.stringify(good.diagnostics, null, 2));
    forms = good.contracts;
    const bad = extractContracts({ files: write(PROBLEMS), output: 'contracts.generated.ts', cwd: dir });
    if (bad.ok) throw new Error('expected diagnostics');
    problems = bad.diagnostics;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const parameters = (name: string) =>
    (forms.tools[name]!.contract.parameters as { properties: Record<string, unknown> }).properties;

  test.each([
    'inline_function',
    'inline_arrow',
    'default_export',
    'property',
    'before_call',
    'after_decorator',
  ])('form %s: every @param and schema tag, and @returns, reach the contract', (form) => {
    expect(parameters(`read_${form}`)).toEqual({ path: PATH, mode: MODE });
    expect(forms.tools[`read_${form}`]!.contract.returns?.description).toBe('The text that was read.');
  });

  test("@example on the line of a @param is its example; on a line of its own, the tool's", () => {
    expect(parameters('read_example')).toEqual({
      path: { type: 'string', description: 'What to look for.', minLength: 1, examples: ['TODO'] },
    });
    expect(forms.tools.read_example!.contract.examples).toEqual([{ arguments: { path: 'FIXME' } }]);
  });

  test('@param root.name describes the parameter, not every folder of a recursive type', () => {
    const { name, children } = parameters('read_recursive') as Record<string, unknown>;
    expect(name).toEqual({ type: 'string', description: "The top folder's name.", minLength: 1 });
    expect(children).toEqual({ type: 'array', items: { $ref: '#/$defs/Folder' } });
    const defs = forms.tools.read_recursive!.contract.parameters.$defs as Record<string, JsonObject>;
    expect((defs.Folder!.properties as Record<string, JsonObject>).name).toEqual({ type: 'string' });
  });

  const found = (file: string) =>
    problems
      .filter((problem) => problem.file.endsWith(file))
      .map(({ code, line, column }) => ({ code, line, column }));

  test('a tag in a type that two tools and a result use is reported once, at the tag', () => {
    expect(found('shared_type.ts')).toEqual([{ code: 'invalid_tag', line: 5, column: 17 }]);
  });

  test('a schema tag in a comment with no @param before it is reported where it is written', () => {
    expect(found('no_param.ts')).toEqual([{ code: 'invalid_tag', line: 4, column: 15 }]);
    expect(problems).toHaveLength(2);
    const message = problems.find((problem) => problem.file.endsWith('no_param.ts'))!.message;
    expect(message).toContain('belongs to no parameter');
    expect(message).not.toContain(dir);
  });
});
