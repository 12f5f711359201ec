import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';
import type { JsonSchema } from '../contract/index.js';
import { sharedAjv } from '../dispatch/validate-json-schema.js';

let instance: jsonSchemaValidator | undefined;

/**
 * The SDK's `jsonSchemaValidator` backed by toolpact's shared draft 2020-12 ajv, so that a Client or
 * Server checks schemas in MCP's default dialect and no second ajv is built per connection.
 * Schemas that declare another `$schema` are checked without it (2020-12 reads most draft-07 alike).
 *
 * @example
 * const client = new Client(info, { jsonSchemaValidator: sharedSchemaValidator() });
 */
export function sharedSchemaValidator(): jsonSchemaValidator {
  instance ??= {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      const { $schema: _dialect, ...rest } = schema as JsonSchema;
      let compiled: ReturnType<ReturnType<typeof sharedAjv>['compile']>;
      try {
        compiled = sharedAjv().compile(rest);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return () => ({
          valid: false,
          data: undefined,
          errorMessage: `the schema cannot be compiled: ${reason}`,
        });
      }
      return (input) =>
        compiled(input)
          ? { valid: true, data: input as T, errorMessage: undefined }
          : {
              valid: false,
              data: undefined,
              errorMessage: sharedAjv().errorsText(compiled.errors),
            };
    },
  };
  return instance;
}
