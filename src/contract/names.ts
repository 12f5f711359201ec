/** The tool-name profile every provider accepts: OpenAI, Anthropic, Gemini and MCP intersect here. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The wider profile MCP allows (SEP-986): dots and up to 128 characters. A tool that enters from
 * elsewhere (an imported MCP server, a corpus) may carry such a name; `defineTool` does not accept one,
 * and each provider adapter gives such a tool a provider-safe alias.
 */
export const WIDE_TOOL_NAME_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Why `name` is not a valid tool name, or `undefined` when it is.
 * The text says what was received and how to fix it.
 */
export function explainInvalidToolName(name: unknown): string | undefined {
  if (typeof name !== 'string') return `the name must be a string, received ${typeof name}`;
  if (name.length === 0) return 'the name is empty; give the tool a short verb_noun name such as "read_file"';
  if (name.length > 64) {
    return `the name "${name.slice(0, 20)}…" has ${name.length} characters; at most 64 are allowed`;
  }
  if (!TOOL_NAME_PATTERN.test(name)) {
    const bad = [...new Set([...name].filter((ch) => !/[A-Za-z0-9_-]/.test(ch)))];
    return (
      `the name "${name}" contains ${bad.map((ch) => JSON.stringify(ch)).join(', ')}; ` +
      'only letters A-Z and a-z, digits, "_" and "-" are allowed (use "_" instead of dots or spaces)'
    );
  }
  return undefined;
}
