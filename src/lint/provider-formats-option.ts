import { PROVIDER_FORMATS } from '../schema/types.js';

/**
 * The `formats` option of the rules that read what the schema adapters report per provider: its
 * schema and its default (every provider format but `canonical`).
 */
export const PROVIDER_FORMATS_OPTION = {
  schema: {
    type: 'object',
    properties: {
      formats: {
        type: 'array',
        items: { enum: PROVIDER_FORMATS.filter((format) => format !== 'canonical') },
        uniqueItems: true,
      },
    },
    additionalProperties: false,
  },
  defaultOptions: { formats: ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'] as string[] },
} as const;
