import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { JsonSchema } from '../contract/index.js';
import type { ResultValidator, ValidationResult } from '../contract/validation.js';
import { makeIssue } from './make-issue.js';
import type { JsonValue } from './serialize.js';
import { ajvFor, issuesFromAjv } from './validate-json-schema.js';
import { issuesFromStandardSchema } from './validate-standard-schema.js';

export type { ResultValidator } from '../contract/validation.js';

/**
 * A validator for a JSON Schema return contract, compiled on the first result and kept. The result
 * is never written to (no defaults are applied), and a schema that cannot be compiled fails every
 * result with one issue that says so, rather than throwing inside a call.
 *
 * @example
 * const check = jsonSchemaResultValidator({ type: 'object', properties: { lines: { type: 'integer' } }, required: ['lines'] });
 * check({ lines: 'three' }); // { ok: false, issues: [{ code: 'invalid_type', path: '$.lines', … }] }
 */
export function jsonSchemaResultValidator(
  schema: JsonSchema,
): (result: JsonValue) => ValidationResult<unknown> {
  let validator = validators.get(schema);
  if (!validator) {
    validator = compileLazily(schema);
    validators.set(schema, validator);
  }
  return validator;
}

// Contracts are frozen, so one validator per schema object serves every registry and server.
const validators = new WeakMap<JsonSchema, (result: JsonValue) => ValidationResult<unknown>>();

function compileLazily(schema: JsonSchema): (result: JsonValue) => ValidationResult<unknown> {
  let compiled: ValidateFunction | undefined;
  let broken: string | undefined;
  return (result) => {
    if (!compiled && broken === undefined) {
      try {
        compiled = ajvFor(schema, 'results').compile(schema as object);
      } catch (error) {
        broken = error instanceof Error ? error.message : String(error);
      }
    }
    if (!compiled) {
      return {
        ok: false,
        issues: [
          makeIssue(
            'invalid',
            [],
            'a result the output schema can check',
            `a schema ajv cannot compile (${broken})`,
          ),
        ],
      };
    }
    if (compiled(result)) return { ok: true, value: result };
    return { ok: false, issues: issuesFromAjv(compiled.errors ?? [], result, schema) };
  };
}

/**
 * A validator that runs a schema library's own validation (zod, valibot, arktype, …) on a result;
 * `jsonSchema` is the output side the library described itself as, used to word the issues.
 *
 * @example
 * const check = standardSchemaResultValidator(z.object({ lines: z.number() }), contract.returns.schema);
 */
export function standardSchemaResultValidator(
  schema: StandardSchemaV1,
  jsonSchema: JsonSchema,
): ResultValidator {
  const convert = (
    result: JsonValue,
    outcome: StandardSchemaV1.Result<unknown>,
  ): ValidationResult<unknown> =>
    outcome.issues
      ? { ok: false, issues: issuesFromStandardSchema(outcome.issues, result, jsonSchema) }
      : { ok: true, value: outcome.value };
  return (result) => {
    const outcome = schema['~standard'].validate(result);
    return outcome instanceof Promise
      ? outcome.then((settled) => convert(result, settled))
      : convert(result, outcome);
  };
}
