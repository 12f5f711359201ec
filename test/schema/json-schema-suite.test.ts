/**
 * Semantics preserved, measured on the official JSON Schema Test Suite (draft 2020-12). Each schema
 * becomes the `value` parameter of a tool. For each adapter, a schema it carries (no error or warning
 * diagnostic) must keep every valid instance valid through the provider's encoding and the way back
 * (A). Where it carries the schema exactly (only exact rewrites), the provider-side schema must also
 * accept every valid instance (B), and whatever it accepts must be valid after the way back (C).
 * Coverage per adapter is printed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { JsonSchema, ToolContract } from '../../src/index.js';
import {
  type GeminiFunctionDeclaration,
  type OpenAIChatTool,
  restoreStrictArguments,
  type SchemaDiagnostic,
  toProviderTools,
} from '../../src/schema/index.js';
import { CORPORA_DIR } from '../support/corpora.js';
import { geminiToJsonSchema } from './support/gemini-to-json-schema.js';
import { encodeForStrict } from './support/strict-encode.js';
import { VARIANTS, type Variant } from './support/variants.js';

const SUITE_DIR = join(CORPORA_DIR, 'json-schema-test-suite', 'tests', 'draft2020-12');
const EXACT_CODES = new Set(['keyword_rewritten', 'keyword_omitted', 'name_aliased', 'returns_described']);
// Identification and dynamic scope have no meaning once the schema is wrapped in a tool's parameters.
const UNWRAPPABLE = [
  '$id',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$recursiveRef',
  '$vocabulary',
  '$schema',
];

interface Group {
  readonly file: string;
  readonly description: string;
  readonly schema: unknown;
  readonly tests: readonly {
    readonly description: string;
    readonly data: unknown;
    readonly valid: boolean;
  }[];
}

const groups: Group[] = readdirSync(SUITE_DIR)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .flatMap((file) =>
    (JSON.parse(readFileSync(join(SUITE_DIR, file), 'utf8')) as Omit<Group, 'file'>[]).map((group) => ({
      ...group,
      file,
    })),
  );

function withoutDialect(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object') return schema;
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
}

function skipReason(schema: unknown): string | undefined {
  const text = JSON.stringify(withoutDialect(schema));
  for (const keyword of UNWRAPPABLE) if (text.includes(`"${keyword}"`)) return `uses ${keyword}`;
  if (/"\$ref":"(?!#)/.test(text)) return 'uses a remote $ref';
  return undefined;
}

/** The schema as the `value` parameter; its `$defs` move to the root and local refs are re-pointed. */
function wrap(schema: unknown): JsonSchema {
  const repoint = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(repoint);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        out[key] = value.startsWith('#/$defs/') ? value : `#/properties/value${value.slice(1)}`;
      } else if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples')
        out[key] = value;
      else out[key] = repoint(value);
    }
    return out;
  };
  const inner = repoint(withoutDialect(schema)) as Record<string, unknown> | boolean;
  const defs = typeof inner === 'object' ? inner.$defs : undefined;
  if (typeof inner === 'object') delete inner.$defs;
  return {
    type: 'object',
    properties: { value: inner },
    required: ['value'],
    additionalProperties: false,
    ...(defs ? { $defs: defs } : {}),
  };
}

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
// One compiled validator per schema object: the suite checks each schema against every instance
// twice or more, and compiling is what costs. Each schema leaves ajv's cache once compiled, so two
// schemas that share an $id never clash.
const validators = new WeakMap<object, ValidateFunction | null>();
function validatorOf(schema: JsonSchema): ValidateFunction | null {
  const key = schema as object;
  let validator = validators.get(key);
  if (validator !== undefined) return validator;
  try {
    validator = ajv.compile(key);
  } catch {
    validator = null;
  } finally {
    ajv.removeSchema(key);
  }
  validators.set(key, validator);
  return validator;
}
const compiles = (schema: JsonSchema): boolean => validatorOf(schema) !== null;
const check = (schema: JsonSchema, data: unknown): boolean => {
  const validator = validatorOf(schema);
  if (!validator) throw new Error('the schema does not compile');
  return validator(data) as boolean;
};

/** The schema a provider checks the model's output against, as JSON Schema. */
function providerSchema(variant: Variant, tool: unknown): JsonSchema | undefined {
  switch (variant.format) {
    case 'openai':
      return (tool as OpenAIChatTool).function.parameters;
    case 'openai-responses':
      return (tool as { parameters: JsonSchema }).parameters;
    case 'anthropic':
      return (tool as { input_schema: JsonSchema }).input_schema;
    case 'gemini': {
      const declaration = tool as GeminiFunctionDeclaration;
      if (declaration.parametersJsonSchema) return declaration.parametersJsonSchema;
      return declaration.parameters ? geminiToJsonSchema(declaration.parameters) : { type: 'object' };
    }
    case 'mcp': {
      const { $schema: _dialect, ...schema } = (tool as { inputSchema: JsonSchema }).inputSchema;
      return schema;
    }
    case 'canonical':
      return undefined;
    default: {
      const exhaustive: never = variant.format;
      return exhaustive;
    }
  }
}

interface Coverage {
  groups: number;
  skipped: number;
  carried: number;
  exact: number;
  instances: number;
  mismatches: string[];
}

describe('JSON Schema Test Suite (draft 2020-12): semantics preserved per adapter', () => {
  const coverage = new Map<string, Coverage>();
  const variants = VARIANTS.filter((variant) => variant.format !== 'canonical');

  it.each(variants)('$id', (variant) => {
    const stats: Coverage = { groups: 0, skipped: 0, carried: 0, exact: 0, instances: 0, mismatches: [] };
    coverage.set(variant.id, stats);
    for (const group of groups) {
      stats.groups++;
      if (skipReason(group.schema)) {
        stats.skipped++;
        continue;
      }
      const parameters = wrap(group.schema);
      if (!compiles(parameters)) {
        stats.skipped++;
        continue;
      }
      const faithful = group.tests.filter((test) => check(parameters, { value: test.data }) === test.valid);
      if (faithful.length === 0) {
        stats.skipped++;
        continue;
      }
      const contract: ToolContract = {
        name: 'suite_case',
        description: group.description,
        parameters,
        category: 'read',
        effects: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
      };
      let result: { tools: unknown[]; diagnostics: SchemaDiagnostic[] };
      try {
        result = toProviderTools([contract], variant.format, variant.options);
      } catch (error) {
        stats.mismatches.push(`${group.file} "${group.description}": the adapter threw ${String(error)}`);
        continue;
      }
      if (result.diagnostics.some((entry) => entry.severity !== 'info')) continue;
      stats.carried++;
      const exact = result.diagnostics.every((entry) => EXACT_CODES.has(entry.code));
      if (exact) stats.exact++;
      const sentSchema = providerSchema(variant, result.tools[0]);
      if (sentSchema && !compiles(sentSchema)) {
        stats.mismatches.push(`${group.file} "${group.description}": the provider schema does not compile`);
        continue;
      }
      const strictOpenAI = variant.options.strict === true && variant.format.startsWith('openai');
      for (const test of faithful) {
        stats.instances++;
        const args = { value: test.data };
        const sent = strictOpenAI ? encodeForStrict(args, sentSchema!) : args;
        const back = strictOpenAI ? restoreStrictArguments(sent, parameters) : sent;
        const where = `${group.file} "${group.description}" / "${test.description}"`;
        // A: a valid call survives the provider's encoding and the way back.
        if (test.valid && !check(parameters, back)) stats.mismatches.push(`A ${where}`);
        if (!exact || !sentSchema) continue;
        const accepted = check(sentSchema, sent);
        // B: the provider lets the model send every valid call.
        if (test.valid && !accepted) stats.mismatches.push(`B ${where}`);
        // C: whatever the provider lets through is valid after the way back (instances the suite calls
        // invalid are a good source of edge values; strict mode cannot omit a field, so their encoding may
        // differ from the instance, which is why the verdict is taken after the way back).
        if (accepted && !check(parameters, back)) stats.mismatches.push(`C ${where}`);
      }
    }
    expect(stats.mismatches).toEqual([]);
    expect(stats.carried).toBeGreaterThan(0);
  });

  it('coverage', () => {
    const rows = [...coverage].map(([id, stats]) => ({
      adapter: id,
      schemas: stats.groups,
      skipped: stats.skipped,
      carried: stats.carried,
      exact: stats.exact,
      instances: stats.instances,
      mismatches: stats.mismatches.length,
    }));
    console.info(`JSON Schema Test Suite coverage\n${JSON.stringify(rows, null, 1)}`);
    expect(rows).toHaveLength(variants.length);
  });
});
