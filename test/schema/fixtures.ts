/**
 * The fixture contracts every adapter runs on: one concern each, with a valid call and, where the
 * contract has optional parts, a call that leaves them out.
 */
import { type AnyTool, createTool, type JsonSchema, type ToolContract } from '../../src/index.js';

export interface Fixture {
  readonly id: string;
  readonly tool: AnyTool;
  /** Calls the contract accepts. */
  readonly valid: readonly { readonly [name: string]: unknown }[];
  /** Calls it refuses, with the path of the first issue. */
  readonly invalid: readonly {
    readonly arguments: { readonly [name: string]: unknown };
    readonly path: string;
  }[];
}

function fixture(
  id: string,
  contract: Partial<ToolContract> & { parameters: JsonSchema },
  valid: Fixture['valid'],
  invalid: Fixture['invalid'] = [],
): Fixture {
  const tool = createTool(
    {
      name: contract.name ?? id,
      description: contract.description ?? `Fixture ${id}: echoes its arguments back.`,
      category: contract.category ?? 'read',
      parameters: contract.parameters,
      ...(contract.returns ? { returns: contract.returns } : {}),
      ...(contract.title ? { title: contract.title } : {}),
      ...(contract.examples ? { examples: contract.examples } : {}),
    },
    // Results are checked against the return contract, so a fixture that has one answers in its shape,
    // still carrying the arguments (as JSON in `name`) for the round-trip checks.
    {
      execute: (args) =>
        contract.returns ? { name: JSON.stringify(args), stock: Object.keys(args).length } : args,
    },
  );
  return { id, tool, valid, invalid };
}

export const FIXTURES: readonly Fixture[] = [
  fixture(
    'nested_objects',
    {
      parameters: {
        type: 'object',
        properties: {
          user: {
            type: 'object',
            description: 'Who the order is for.',
            properties: {
              name: { type: 'string', description: 'Full name.' },
              address: {
                type: 'object',
                properties: { city: { type: 'string' }, zip: { type: 'string' } },
                required: ['city'],
                additionalProperties: false,
              },
            },
            required: ['name'],
            additionalProperties: false,
          },
        },
        required: ['user'],
        additionalProperties: false,
      },
    },
    [{ user: { name: 'Ada', address: { city: 'London', zip: 'N1' } } }, { user: { name: 'Ada' } }],
    [{ arguments: { user: { address: { city: 'x' } } }, path: '$.user.name' }],
  ),
  fixture(
    'array_of_objects',
    {
      parameters: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            description: 'The lines of the order.',
            minItems: 1,
            maxItems: 50,
            items: {
              type: 'object',
              properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } },
              required: ['sku', 'quantity'],
              additionalProperties: false,
            },
          },
        },
        required: ['items'],
      },
    },
    [{ items: [{ sku: 'A1', quantity: 2 }] }],
    [{ arguments: { items: [{ sku: 'A1', quantity: 0 }] }, path: '$.items[0].quantity' }],
  ),
  fixture(
    'enums',
    {
      parameters: {
        type: 'object',
        properties: {
          unit: { type: 'string', enum: ['celsius', 'fahrenheit'], description: 'Temperature unit.' },
          level: { type: 'integer', enum: [1, 2, 3], description: 'Detail level.' },
          mode: { const: 'fast' },
        },
        required: ['unit', 'level'],
      },
    },
    [
      { unit: 'celsius', level: 2 },
      { unit: 'fahrenheit', level: 1, mode: 'fast' },
    ],
    [{ arguments: { unit: 'kelvin', level: 2 }, path: '$.unit' }],
  ),
  fixture(
    'nullable',
    {
      parameters: {
        type: 'object',
        properties: {
          note: { type: ['string', 'null'], description: 'A note, or null to clear it.' },
          parent: {
            anyOf: [{ type: 'integer' }, { type: 'null' }],
            description: 'Parent id, or null for none.',
          },
        },
        required: ['note', 'parent'],
      },
    },
    [
      { note: null, parent: null },
      { note: 'hi', parent: 3 },
    ],
    [{ arguments: { note: 1, parent: null }, path: '$.note' }],
  ),
  fixture(
    'optional_default',
    {
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What to look for.' },
          limit: { type: 'integer', default: 10, minimum: 1, maximum: 100, description: 'Most results.' },
          exact: { type: 'boolean', description: 'Match exactly.' },
        },
        required: ['query'],
      },
    },
    [{ query: 'x' }, { query: 'x', limit: 5, exact: true }],
    [{ arguments: { query: 'x', limit: 0 }, path: '$.limit' }],
  ),
  fixture(
    'unions',
    {
      parameters: {
        type: 'object',
        properties: {
          id: { anyOf: [{ type: 'string' }, { type: 'integer' }], description: 'A name or a number.' },
          shape: {
            oneOf: [
              {
                type: 'object',
                properties: { kind: { const: 'circle' }, radius: { type: 'number' } },
                required: ['kind', 'radius'],
                additionalProperties: false,
              },
              {
                type: 'object',
                properties: { kind: { const: 'square' }, side: { type: 'number' } },
                required: ['kind', 'side'],
                additionalProperties: false,
              },
            ],
          },
        },
        required: ['id', 'shape'],
      },
    },
    [
      { id: 'a', shape: { kind: 'circle', radius: 1 } },
      { id: 7, shape: { kind: 'square', side: 2 } },
    ],
    [{ arguments: { id: true, shape: { kind: 'circle', radius: 1 } }, path: '$.id' }],
  ),
  fixture(
    'defs_refs',
    {
      parameters: {
        type: 'object',
        properties: {
          home: { $ref: '#/$defs/address' },
          work: { $ref: '#/$defs/address', description: 'Where they work.' },
          tree: { $ref: '#/$defs/node' },
        },
        required: ['home'],
        $defs: {
          address: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          },
          node: {
            type: 'object',
            properties: {
              label: { type: 'string' },
              children: { type: 'array', items: { $ref: '#/$defs/node' } },
            },
            required: ['label'],
            additionalProperties: false,
          },
        },
      },
    },
    [
      { home: { city: 'Oslo' } },
      { home: { city: 'Oslo' }, work: { city: 'Bergen' }, tree: { label: 'a', children: [{ label: 'b' }] } },
    ],
    [{ arguments: { home: {} }, path: '$.home.city' }],
  ),
  fixture(
    'constraints',
    {
      parameters: {
        type: 'object',
        properties: {
          code: {
            type: 'string',
            minLength: 3,
            maxLength: 8,
            pattern: '^[A-Z]+$',
            description: 'Upper-case code.',
          },
          amount: { type: 'number', exclusiveMinimum: 0, maximum: 1000, multipleOf: 0.5 },
          count: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10 },
          tags: { type: 'array', items: { type: 'string' }, uniqueItems: true, maxItems: 5 },
        },
        required: ['code', 'amount'],
      },
    },
    [
      { code: 'ABC', amount: 10.5 },
      { code: 'ABCDEFGH', amount: 1000, count: 9, tags: ['a', 'b'] },
    ],
    [{ arguments: { code: 'AB', amount: 1 }, path: '$.code' }],
  ),
  fixture(
    'formats',
    {
      parameters: {
        type: 'object',
        properties: {
          when: { type: 'string', format: 'date-time', description: 'When it starts.' },
          email: { type: 'string', format: 'email' },
          site: { type: 'string', format: 'uri' },
        },
        required: ['when'],
      },
    },
    [{ when: '2026-12-02T10:00:00Z', email: 'a@b.org', site: 'https://example.org/' }],
    [{ arguments: { when: 'tomorrow' }, path: '$.when' }],
  ),
  fixture(
    'no_parameters',
    { description: 'Fixture no_parameters: takes nothing.', parameters: { type: 'object', properties: {} } },
    [{}],
  ),
  fixture(
    'returns_and_examples',
    {
      name: 'catalog.lookup_product_by_stock_keeping_unit_across_every_regional_warehouse',
      title: 'Look up product',
      parameters: {
        type: 'object',
        properties: { sku: { type: 'string', description: 'Stock keeping unit, e.g. "A-100".' } },
        required: ['sku'],
      },
      returns: {
        description: 'The product and how many are in stock.',
        schema: {
          type: 'object',
          properties: { name: { type: 'string' }, stock: { type: 'integer' } },
          required: ['name', 'stock'],
        },
      },
      examples: [{ arguments: { sku: 'A-100' } }],
    },
    [{ sku: 'A-100' }],
  ),
];
