import { describe, expect, it } from 'vitest';
import { createTool, type JsonSchema } from '../../src/index.js';
import { toProviderTools } from '../../src/schema/index.js';

/** The strict OpenAI parameters of one property, and the diagnostics at its path. */
function strictProperty(property: JsonSchema) {
  const tool = createTool(
    {
      name: 'find_text',
      description: 'Find text.',
      category: 'search',
      parameters: { type: 'object', properties: { value: property } },
    },
    { execute: () => null },
  );
  const { tools, diagnostics } = toProviderTools([tool.contract], 'openai', { strict: true });
  const parameters = tools[0]!.function.parameters as { properties: { value: JsonSchema } };
  return {
    description: parameters.properties.value.description,
    described: diagnostics.filter((entry) => entry.code === 'keyword_described').map((entry) => entry.path),
  };
}

describe('words strict mode adds for what it cannot carry', () => {
  it.each([
    ['Default: 100.', 100],
    ['Most matches to return. Defaults to 100', 100],
    ['Treat it as a regular expression. Default: false.', false],
    ['Folder to search; "." (the default) is the root.', '.'],
    ["The kind of scale. Defaults to 'major'.", 'major'],
    ['The default is `metric`.', 'metric'],
    ['Largest file, in bytes. Default is 1,048,576.', 1_048_576],
  ])(
    'a default the description states (%j) is not stated again, and the diagnostic says so',
    (text, value) => {
      const type = typeof value === 'boolean' ? 'boolean' : typeof value === 'number' ? 'integer' : 'string';
      const { description, described } = strictProperty({ type, description: text, default: value });
      expect(description).toBe(text);
      expect(described).toEqual(['$.parameters.properties.value.default']);
    },
  );

  it.each([
    ['Most matches to return.', 100],
    ['Most matches to return; at most 1000, default 10.', 100],
    ['Default: 1000.', 100],
    ['Treat it as a regular expression. Default: true.', false],
    ['The unit, metric or imperial; the default depends on the locale.', 'metric'],
    ['Folder to search.', '.'],
  ])('a default the description does not state (%j) is added in words', (text, value) => {
    const type = typeof value === 'boolean' ? 'boolean' : typeof value === 'number' ? 'integer' : 'string';
    const { description } = strictProperty({ type, description: text, default: value });
    expect(description).toBe(`${text} (default ${JSON.stringify(value)})`);
  });

  it('a length bound written with its unit is not repeated; one written without it is', () => {
    expect(
      strictProperty({
        type: 'string',
        maxLength: 1_000_000,
        description: 'The new text, at most 1,000,000 characters.',
      }).description,
    ).toBe('The new text, at most 1,000,000 characters.');
    expect(
      strictProperty({ type: 'string', maxLength: 500, description: 'Up to 500 of them.' }).description,
    ).toBe('Up to 500 of them. (at most 500 characters)');
    expect(
      strictProperty({ type: 'string', minLength: 1, description: 'A name, 1 character or more.' })
        .description,
    ).toBe('A name, 1 character or more.');
  });
});
