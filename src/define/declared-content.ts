import { CONTENT_BLOCK_TYPES, type ContentType } from '../content/blocks.js';
import { ToolDefinitionError } from '../errors/index.js';

/**
 * The content types a tool declares (`returns.content`), checked: a list of known block types, each
 * once; anything else is a {@link ToolDefinitionError} naming the tool.
 *
 * @example
 * declaredContent('screenshot', ['text', 'image']); // ['text', 'image']
 */
export function declaredContent(name: string, content: unknown): readonly ContentType[] {
  const known: readonly unknown[] = CONTENT_BLOCK_TYPES;
  const wrong = Array.isArray(content)
    ? content.find((type, index) => !known.includes(type) || content.indexOf(type) !== index)
    : content;
  if (!Array.isArray(content) || wrong !== undefined) {
    throw new ToolDefinitionError(
      'invalid_option',
      `Tool "${name}": content lists the block types the tool answers with, each once, from ${CONTENT_BLOCK_TYPES.map((type) => `"${type}"`).join(', ')}; received ${JSON.stringify(wrong ?? content)}.`,
      name,
    );
  }
  return [...content] as ContentType[];
}
