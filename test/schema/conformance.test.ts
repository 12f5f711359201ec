/**
 * One suite every adapter runs, on the same fixture contracts: the output matches its golden file
 * (test/golden/<variant>/<fixture>.json, canonicalized), is byte-stable, has no error diagnostic unless
 * a named skip below says why, and every fixture call sent back through the provider's way back gives
 * the same envelope as calling the registry directly.
 */
import { describe, expect, it } from 'vitest';
import { isErrorType, Registry } from '../../src/index.js';
import { toProviderTools } from '../../src/schema/index.js';
import { FIXTURES } from './fixtures.js';
import { golden } from './support/golden.js';
import { viaProvider } from './support/round-trip.js';
import { VARIANTS } from './support/variants.js';

/** Error diagnostics that are the right answer, by `variant/fixture`, with the reason. */
const EXPECTED_ERRORS: {
  readonly [key: string]: { readonly codes: readonly string[]; readonly reason: string };
} = {
  'anthropic-strict/defs_refs': {
    codes: ['recursive_schema'],
    reason: 'Anthropic strict tool use does not support recursive schemas',
  },
  'gemini/defs_refs': {
    codes: ['recursive_schema'],
    reason:
      'the OpenAPI subset has no references, and a recursive one cannot be inlined (the json-schema form carries it)',
  },
};

const registry = new Registry().register(FIXTURES.map((fixture) => fixture.tool));

describe.each(VARIANTS)('$id', (variant) => {
  const first = toProviderTools(registry.schemas(), variant.format, variant.options);

  it('is byte-stable and the same as registry.schemas(format, options)', () => {
    const again = toProviderTools(registry.schemas(), variant.format, variant.options);
    expect(JSON.stringify(again.tools)).toBe(JSON.stringify(first.tools));
    expect(JSON.stringify(registry.schemas(variant.format, variant.options))).toBe(
      JSON.stringify(first.tools),
    );
  });

  it.each(FIXTURES.map((fixture, index) => ({ fixture, index })))(
    '$fixture.id',
    async ({ fixture, index }) => {
      const tool = first.tools[index];
      const diagnostics = first.diagnostics.filter((entry) => entry.tool === fixture.tool.contract.name);
      const { expected, actual } = golden(`${variant.id}/${fixture.id}`, {
        tool,
        diagnostics: diagnostics.map(({ severity, code, path }) => ({ severity, code, path })),
      });
      expect(actual).toBe(expected);

      const errors = diagnostics.filter((entry) => entry.severity === 'error').map((entry) => entry.code);
      expect(errors).toEqual(EXPECTED_ERRORS[`${variant.id}/${fixture.id}`]?.codes ?? []);
      for (const entry of diagnostics) {
        expect(entry.format).toBe(variant.format);
        expect(entry.message.length).toBeGreaterThan(20);
      }

      for (const args of fixture.valid) {
        const direct = await registry.call(fixture.tool.contract.name, args);
        expect(direct.ok, JSON.stringify(direct)).toBe(true);
        expect(await viaProvider(registry, variant, tool, args)).toEqual(direct);
      }
      for (const { arguments: args, path } of fixture.invalid) {
        const envelope = await viaProvider(registry, variant, tool, args);
        expect(envelope.ok).toBe(false);
        if (isErrorType(envelope, 'invalid_arguments')) {
          expect(envelope.error.issues.map((issue) => issue.path)).toContain(path);
        } else {
          expect.fail(`expected invalid_arguments, received ${JSON.stringify(envelope)}`);
        }
      }
    },
  );
});
