/**
 * BFCL (test/corpora/bfcl): every function of the four categories converts for every provider;
 * the error diagnostics that remain are listed by code with the reason (EXPLAINED), anything else
 * fails. Every clean ground-truth call, sent through each provider's way back (strict round trip
 * included), still validates.
 */
import { describe, expect, it } from 'vitest';
import { Registry } from '../../src/index.js';
import { toProviderTools } from '../../src/schema/index.js';
import { BFCL_NOISY_IDS, bfclTool, loadBfcl } from '../support/bfcl.js';
import { viaProvider } from './support/round-trip.js';
import { VARIANTS } from './support/variants.js';

const entries = loadBfcl();
// One registry per question, shared by every variant, so each tool's validator is compiled once.
const registries = new Map(
  entries.map((entry) => [entry.id, new Registry().register(entry.functions.map(bfclTool))]),
);

/** Error codes that are the right answer for some BFCL functions, per variant, and why. */
const EXPLAINED: { readonly [variant: string]: { readonly [code: string]: string } } = {
  'openai-strict': {
    strict_unsupported:
      'free-form "dict" parameters (no properties, one with a "required" list naming none) and untyped "any" parameters cannot be closed or typed in strict mode (7 functions)',
  },
  'openai-responses-strict': {
    strict_unsupported:
      'free-form "dict" parameters (no properties, one with a "required" list naming none) and untyped "any" parameters cannot be closed or typed in strict mode (7 functions)',
  },
  'anthropic-strict': {
    strict_unsupported:
      'free-form "dict" parameters (no properties, one with a "required" list naming none) and untyped "any" parameters cannot be closed or typed in strict mode (7 functions)',
  },
};

describe('BFCL', () => {
  // Each BFCL question is one request: its functions are converted together, as they would be sent.
  it.each(VARIANTS.filter((variant) => variant.format !== 'canonical'))(
    'every definition converts for $id',
    (variant) => {
      const explained = EXPLAINED[variant.id] ?? {};
      const unexplained = new Set<string>();
      const failing = new Set<string>();
      const functions = new Set<string>();
      let warnings = 0;
      for (const entry of entries) {
        const contracts = entry.functions.map((fn) => bfclTool(fn).contract);
        for (const contract of contracts) functions.add(contract.name);
        const { diagnostics } = toProviderTools(contracts, variant.format, variant.options);
        for (const diagnostic of diagnostics) {
          if (diagnostic.severity === 'warning') warnings++;
          if (diagnostic.severity !== 'error') continue;
          failing.add(diagnostic.tool);
          if (!Object.hasOwn(explained, diagnostic.code))
            unexplained.add(`${diagnostic.tool} ${diagnostic.path} ${diagnostic.code}`);
        }
      }
      expect([...unexplained]).toEqual([]);
      console.info(
        `BFCL ${variant.id}: ${functions.size} functions, ${failing.size} with an explained error, ${warnings} warnings`,
      );
    },
  );

  it.each(VARIANTS)('every clean ground-truth call validates through the $id way back', async (variant) => {
    let calls = 0;
    const failures: string[] = [];
    for (const entry of entries) {
      if (BFCL_NOISY_IDS.has(entry.id)) continue;
      const registry = registries.get(entry.id)!;
      const { tools, diagnostics } = toProviderTools(registry.schemas(), variant.format, variant.options);
      for (const call of entry.calls) {
        const index = registry.schemas().findIndex((contract) => contract.name === call.name);
        if (index < 0) continue;
        // A tool the provider would refuse never reaches the model, so its calls cannot come back.
        if (diagnostics.some((entry) => entry.severity === 'error' && entry.tool === call.name)) continue;
        calls++;
        const envelope = await viaProvider(registry, variant, tools[index], call.arguments);
        if (!envelope.ok)
          failures.push(`${entry.id} ${call.name}: ${JSON.stringify(envelope.error).slice(0, 300)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(calls).toBeGreaterThan(0);
    console.info(`BFCL ${variant.id}: ${calls} ground-truth calls through the way back, all valid`);
  });
});
