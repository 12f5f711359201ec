/**
 * The call the dispatch benchmark makes and the tools it makes it to, shared with
 * `profile-dispatch.ts`, which runs one case in a loop for a profiler.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as z from 'zod';
import { defineTool, Registry } from '../src/index.js';

/** The forecast tool's parameters. */
export const schema = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1 },
    days: { type: 'integer', minimum: 1, maximum: 14 },
    units: { enum: ['metric', 'imperial'] },
  },
  required: ['city', 'days'],
  additionalProperties: false,
} as const;
/** The tool itself: a trivial function, so the figures are the dispatcher's own cost. */
export const forecast = (args: { city: string; days: number; units?: string }) => ({
  city: args.city,
  days: args.days,
  units: (args.units ?? 'metric') as 'metric' | 'imperial',
  highs: [21, 22, 19],
});
/** The call's arguments, as a provider sends them. */
export const raw = '{"city":"Lisbon","days":3,"units":"metric"}';
const outputSchema = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    days: { type: 'integer' },
    units: { enum: ['metric', 'imperial'] },
    highs: { type: 'array', items: { type: 'number' } },
  },
  required: ['city', 'days', 'units', 'highs'],
  additionalProperties: false,
} as const;
const zodOutput = z.object({
  city: z.string(),
  days: z.number().int(),
  units: z.enum(['metric', 'imperial']),
  highs: z.array(z.number()),
});
/** The same parameters as a zod schema. */
export const zodInput = z.object({
  city: z.string().min(1),
  days: z.number().int().min(1).max(14),
  units: z.enum(['metric', 'imperial']).optional(),
});

/**
 * A registry holding the forecast tool four ways: JSON Schema or zod input, with and without an output
 * schema (`forecast`, `forecast_zod`, `forecast_checked`, `forecast_zod_checked`); and the same JSON
 * Schema tool behind a gate that allows everything.
 */
export function forecastRegistries(): { registry: Registry; gated: Registry } {
  const jsonTool = defineTool({
    name: 'forecast',
    description: 'Weather forecast.',
    category: 'read',
    input: schema,
    execute: forecast,
  });
  const zodTool = defineTool({
    name: 'forecast_zod',
    description: 'Weather forecast.',
    category: 'read',
    input: zodInput,
    execute: forecast,
  });
  const jsonChecked = defineTool({
    name: 'forecast_checked',
    description: 'Weather forecast.',
    category: 'read',
    input: schema,
    output: outputSchema,
    execute: forecast,
  });
  const zodChecked = defineTool({
    name: 'forecast_zod_checked',
    description: 'Weather forecast.',
    category: 'read',
    input: zodInput,
    output: zodOutput,
    execute: forecast,
  });
  const registry = new Registry().register(jsonTool, zodTool, jsonChecked, zodChecked);
  const gated = new Registry({ beforeCall: () => ({ action: 'allow' }) }).register(jsonTool);
  return { registry, gated };
}

/** The floor: what any dispatcher must do at least (parse, a precompiled validator, the call, stringify). */
export function floorCall(): () => string {
  const validate = new Ajv2020({ allErrors: true }).compile(schema);
  return () => {
    const args = JSON.parse(raw) as { city: string; days: number };
    if (!validate(args)) throw new Error('invalid');
    return JSON.stringify({ ok: true, result: forecast(args) });
  };
}
