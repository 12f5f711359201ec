import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type } from 'arktype';
import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import {
  type AnyTool,
  type CallRecord,
  createTool,
  defineTool,
  FRAMEWORK_ERROR_TYPES,
  isErrorType,
  Registry,
  type RegistryOptions,
  ToolDefinitionError,
} from '../../src/index.js';
import { openAuditLog, readAuditLog } from '../../src/policy/index.js';

// Built at run time so that no scanner takes this file for a leak.
const SECRET = `sk-proj-${'Q7w8E9r0'.repeat(4)}`;

const report = {
  type: 'object',
  properties: {
    lines: { type: 'integer', minimum: 0 },
    status: { enum: ['complete', 'partial'] },
    note: { type: 'string', default: 'none' },
  },
  required: ['lines', 'status'],
  additionalProperties: false,
} as const;

/** A tool whose `output` is the JSON Schema above and whose result is whatever the call asks for. */
const counted = defineTool({
  name: 'count_lines',
  description: 'Count the lines of a text (a test tool that returns what it is told to).',
  category: 'read',
  input: { type: 'object', properties: { result: {} }, additionalProperties: false } as const,
  output: report,
  execute: ({ result }) => result as never,
});

function observed(options: RegistryOptions = {}, ...tools: AnyTool[]) {
  const records: CallRecord[] = [];
  const registry = new Registry({ ...options, observe: (record) => records.push(record) }).register(
    tools.length ? tools : [counted],
  );
  return { registry, records };
}

describe('results are checked against the output schema', () => {
  test('a result that conforms is delivered unchanged, with no issues for observers', async () => {
    const { registry, records } = observed();
    const text = await registry.dispatch('count_lines', { result: { lines: 3, status: 'complete' } });
    expect(JSON.parse(text)).toEqual({ ok: true, result: { lines: 3, status: 'complete' } });
    expect(records[0]).toMatchObject({ outcome: 'ok' });
    expect(records[0]!.resultIssues).toBeUndefined();
  });

  test('a JSON Schema result that breaks it is invalid_result: the tool is blamed, the issues stay out of the envelope', async () => {
    const { registry, records } = observed();
    const text = await registry.dispatch('count_lines', {
      result: { lines: SECRET, status: 'done', extra: true },
    });
    const envelope = JSON.parse(text);
    expect(envelope).toEqual({
      ok: false,
      error: { type: 'invalid_result', tool: 'count_lines', message: expect.any(String) },
    });
    expect(envelope.error.message).toContain('defect in the tool, not in your arguments');
    expect(envelope.error.message).toContain('do not retry the same call');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('extra');
    expect(records[0]!.outcome).toBe('invalid_result');
    expect(records[0]!.resultIssues!.map((issue) => [issue.code, issue.path]).sort()).toEqual([
      ['invalid_type', '$.lines'],
      ['invalid_value', '$.status'],
      ['unknown_property', '$.extra'],
    ]);
    expect(records[0]!.resultIssues!.find((issue) => issue.path === '$.lines')!.received).toContain(
      'sk-proj-',
    );
  });

  test('the check never writes to the result: a frozen result with a defaulted field passes as it is', async () => {
    const frozen = Object.freeze({ lines: 1, status: 'partial' as const });
    const tool = defineTool({
      name: 'frozen',
      description: 'Return a frozen result (a test tool).',
      category: 'read',
      output: report,
      execute: () => frozen as never,
    });
    const envelope = await new Registry().register(tool).call('frozen', {});
    expect(envelope).toEqual({ ok: true, result: { lines: 1, status: 'partial' } });
    expect(Object.keys(frozen)).toEqual(['lines', 'status']);
  });

  test('a zod output is the model-facing result: unknown keys stripped, defaults filled', async () => {
    const tool = defineTool({
      name: 'stats',
      description: 'Report statistics (a test tool).',
      category: 'read',
      input: z.object({ lines: z.unknown() }),
      output: z.object({ lines: z.number().int(), unit: z.string().default('lines') }),
      execute: ({ lines }) => ({ lines, internal: 'cache-key' }) as never,
    });
    const { registry, records } = observed({}, tool);
    expect(await registry.call('stats', { lines: 4 })).toEqual({
      ok: true,
      result: { lines: 4, unit: 'lines' },
    });
    const failed = await registry.call('stats', { lines: 'four' });
    expect(isErrorType(failed, 'invalid_result')).toBe(true);
    expect(records[1]!.resultIssues).toEqual([
      expect.objectContaining({ code: 'invalid_type', path: '$.lines', expected: 'number' }),
    ]);
  });

  test('an arktype output is checked by arktype', async () => {
    const tool = defineTool({
      name: 'size',
      description: 'Report a size (a test tool).',
      category: 'read',
      input: { type: 'object', properties: { bytes: {} } } as const,
      output: type({ bytes: 'number >= 0' }),
      execute: ({ bytes }) => ({ bytes }) as never,
    });
    const registry = new Registry().register(tool);
    expect(await registry.call('size', { bytes: 10 })).toEqual({ ok: true, result: { bytes: 10 } });
    expect(isErrorType(await registry.call('size', { bytes: -1 }), 'invalid_result')).toBe(true);
  });

  test('a schema library that validates asynchronously is awaited', async () => {
    const jsonSchema = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
    const asyncOutput = {
      '~standard': {
        version: 1 as const,
        vendor: 'async-test',
        validate: async (value: unknown) =>
          typeof (value as { id?: unknown })?.id === 'string'
            ? { value }
            : { issues: [{ message: 'id must be a string', path: ['id'] }] },
        jsonSchema: { input: () => jsonSchema, output: () => jsonSchema },
      },
    };
    const tool = defineTool({
      name: 'lookup',
      description: 'Look an id up (a test tool).',
      category: 'read',
      input: { type: 'object', properties: { id: {} } } as const,
      output: asyncOutput,
      execute: ({ id }) => ({ id }) as never,
    });
    const { registry, records } = observed({}, tool);
    expect(await registry.call('lookup', { id: 'a1' })).toEqual({ ok: true, result: { id: 'a1' } });
    expect(isErrorType(await registry.call('lookup', { id: 7 }), 'invalid_result')).toBe(true);
    expect(records[1]!.resultIssues).toEqual([expect.objectContaining({ path: '$.id' })]);
  });

  test('a tool made from a contract is checked against its returns schema; a schema ajv cannot compile fails every result', async () => {
    const imported = createTool(
      {
        name: 'remote.sum',
        description: 'Add two numbers (a contract given as data).',
        category: 'read',
        parameters: { type: 'object', properties: { a: {}, b: {} } },
        returns: { schema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] } },
      },
      { execute: ({ a, b }) => ({ sum: (a as number) + (b as number) }) },
    );
    const broken = createTool(
      {
        name: 'broken',
        description: 'Return anything (its return schema points at nothing).',
        category: 'read',
        parameters: { type: 'object' },
        returns: { schema: { $ref: '#/$defs/missing' } },
      },
      { execute: () => ({ any: 'thing' }) },
    );
    const { registry, records } = observed({}, imported, broken);
    expect(await registry.call('remote.sum', { a: 2, b: 3 })).toEqual({ ok: true, result: { sum: 5 } });
    expect(isErrorType(await registry.call('remote.sum', { a: 'x', b: 3 }), 'invalid_result')).toBe(true);
    expect(isErrorType(await registry.call('broken', {}), 'invalid_result')).toBe(true);
    expect(records[2]!.resultIssues).toEqual([
      expect.objectContaining({ code: 'invalid', received: expect.stringContaining('cannot compile') }),
    ]);
  });

  test('the whole result is checked before it is cut for length; the cut keeps the shape when the schema allows', async () => {
    const { registry } = observed({ maxResultChars: 400 });
    const long = { lines: 1, status: 'complete', note: 'x'.repeat(2_000) };
    const cut = await registry.call('count_lines', { result: long });
    expect(cut).toMatchObject({
      ok: true,
      result: { lines: 1, status: 'complete', note: expect.stringMatching(/^x{32,}$/) },
      truncated: { totalChars: JSON.stringify(long).length, message: expect.stringContaining('shortened') },
    });
    expect(JSON.stringify(cut).length).toBeLessThanOrEqual(400);
    const wrong = await registry.call('count_lines', { result: { ...long, lines: -1 } });
    expect(isErrorType(wrong, 'invalid_result')).toBe(true);
  });

  test('a cut that would break the schema (a list that must stay long) is cut as text instead', async () => {
    const tool = defineTool({
      name: 'many',
      description: 'Return at least thirty items (a test tool).',
      category: 'read',
      output: { type: 'object', properties: { items: { type: 'array', minItems: 30 } }, required: ['items'] },
      execute: () => ({ items: Array.from({ length: 100 }, (_, index) => `item ${index}`) }),
    });
    const envelope = await new Registry({ maxResultChars: 300 }).register(tool).call('many', {});
    expect(envelope.ok && typeof envelope.result).toBe('string');
    expect(envelope.ok && envelope.truncated?.message).toContain('cut to its first');
  });

  test("'warn' delivers the result and tells observers; 'off' does not check", async () => {
    const bad = { result: { lines: -2, status: 'complete' } };
    const warned = observed({ validateResults: 'warn' });
    expect(await warned.registry.call('count_lines', bad)).toEqual({ ok: true, result: bad.result });
    expect(warned.records[0]).toMatchObject({
      outcome: 'ok',
      resultIssues: [expect.objectContaining({ code: 'too_small', path: '$.lines' })],
    });
    const off = observed({ validateResults: 'off' });
    expect(await off.registry.call('count_lines', bad)).toEqual({ ok: true, result: bad.result });
    expect(off.records[0]!.resultIssues).toBeUndefined();
    // A delegate's registry keeps the setting.
    const subset = new Registry({ validateResults: 'off' }).register(counted).subset(['count_lines']);
    expect((await subset.call('count_lines', bad)).ok).toBe(true);
  });

  test('an unknown validateResults is refused when the registry is made', () => {
    const make = () => new Registry({ validateResults: 'strict' as never });
    expect(make).toThrow(ToolDefinitionError);
    expect(make).toThrow(/validateResults is "strict"; use 'error'/);
  });

  test('tools without an output schema are not checked', async () => {
    const free = defineTool({
      name: 'free',
      description: 'Return anything (a test tool).',
      category: 'read',
      execute: () => ({ anything: [1, 'two'] }),
    });
    const { registry, records } = observed({}, free);
    expect(await registry.call('free', {})).toEqual({ ok: true, result: { anything: [1, 'two'] } });
    expect(records[0]!.resultIssues).toBeUndefined();
  });

  test('the audit log records the issues, redacted; the model never sees them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolpact-result-audit-'));
    try {
      const file = join(dir, 'audit.jsonl');
      const audit = openAuditLog(file);
      const registry = new Registry({ observe: audit.observe }).register(counted);
      const text = await registry.dispatch('count_lines', { result: { lines: SECRET, status: 'complete' } });
      await registry.dispatch('count_lines', { result: { lines: 1, status: 'complete' } });
      audit.close();
      expect(text).not.toContain('$.lines');
      expect(text).not.toContain('sk-proj-');
      const [failed, passed] = readAuditLog(file).entries;
      expect(failed).toMatchObject({
        outcome: 'invalid_result',
        resultIssues: [{ code: 'invalid_type', path: '$.lines', expected: 'integer' }],
      });
      expect(failed!.resultIssues![0]!.received).toContain('[REDACTED]');
      expect(readFileSync(file, 'utf8')).not.toContain(SECRET);
      expect(passed!.resultIssues).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('every framework error type has a row in the docs/core.md envelope table (meta-test)', () => {
  const docs = readFileSync(new URL('../../docs/core.md', import.meta.url), 'utf8');
  for (const type of FRAMEWORK_ERROR_TYPES) expect(docs).toContain(`| \`${type}\` |`);
});
