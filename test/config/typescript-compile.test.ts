// Which modules the TypeScript hooks take for decorated (compiled by the TypeScript compiler, never kept
// in the compile cache) and which not: every place a standard decorator can stand, against an `@` in a
// string, a regular expression, a template literal's middle, and a doc comment.
import { describe, expect, test } from 'vitest';
import { compile } from '../../src/config/typescript-hooks.js';

const at = (source: string) => compile(source, '/project/module.ts', 'file:///project/module.ts');
const DEC = 'function dec(value: unknown, _context: unknown) { return value; }\n';

describe('a decorator is found wherever one can stand', () => {
  test.each([
    ['on a class', '@dec export class A {}'],
    ['after export', 'export @dec class A {}'],
    ['on a method', 'class A { @dec m(): void {} }'],
    ['on a field and an accessor', 'class A { @dec x = 1; @dec accessor y = 2; }'],
    ['with arguments', 'const make = () => dec; class A { @make() m() {} }'],
    ['on a class expression', 'export const A = @dec class {};'],
    ['on a class expression in a call', 'console.log(@dec class {});'],
    ['parenthesized', 'class A { @((value: unknown) => value) m() {} }'],
  ])('%s', (_label, source) => {
    const compiled = at(DEC + source);
    expect(compiled.decorated).toBe(true);
    // Lowered by the TypeScript compiler this checkout has: no decorator is left for Node to refuse.
    expect(compiled.code).not.toMatch(/^\s*@/m);
  });
});

describe('an `@` that is no decorator is not taken for one', () => {
  test.each([
    ['in a string', 'export const hint = "npm install @opentelemetry/api (@scope/pkg)";'],
    ['in a regular expression', 'export const scoped = /^[@a-z]/;\nexport const at = / @x/;'],
    ['in a template literal', 'export const text = `a @b\nc (@d)`;'],
    [
      'in doc comments',
      '/**\n * @param x the value\n * @example\n * @dec\n */\nexport function f(x: number) { return x; }',
    ],
    ['in a line comment', '// @dec\nexport class A {}'],
  ])('%s', (_label, source) => {
    const compiled = at(source);
    expect(compiled.decorated).toBe(false);
  });
});
