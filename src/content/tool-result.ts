import { CONTENT_BLOCK_TYPES, type ContentBlock } from './blocks.js';
import { markCarried } from './carried.js';

/** What {@link toolResult} takes and answers. */
export interface ToolResult<
  S extends { readonly [key: string]: unknown } = { readonly [key: string]: unknown },
> {
  readonly content: readonly ContentBlock[];
  /** The structured value (an object), checked against the tool's return schema when it has one. */
  readonly structuredContent?: S;
}

const TYPES: ReadonlySet<string> = new Set(CONTENT_BLOCK_TYPES);

/**
 * A tool's result made of content blocks (see `content`), with an optional structured value.
 * Through MCP the blocks go out as MCP content blocks, as they are. Through `registry.call` and the
 * provider adapters the envelope's `result` is this object as JSON, binary data as base64:
 * `{ "content": [{ "type": "image", "data": "iVBOR…", "mimeType": "image/png" }], "structuredContent": … }`.
 * Text is cut to the registry's `maxResultChars` and binary data over its `maxBinaryBytes` is
 * replaced by a text block saying so, on both faces. A tool with a return schema is checked on
 * `structuredContent`.
 *
 * @example
 * return toolResult({
 *   content: [content.text('The chart:'), content.image(png, 'image/png')],
 *   structuredContent: { points: 42 },
 * });
 */
export function toolResult<S extends { readonly [key: string]: unknown }>(init: {
  readonly content: readonly ContentBlock[];
  readonly structuredContent?: S;
}): ToolResult<S> {
  const blocks = init?.content;
  if (!Array.isArray(blocks)) {
    throw new TypeError(
      'toolResult takes { content: [...blocks] }; make the blocks with content.text, content.image, ….',
    );
  }
  blocks.forEach((block: unknown, index) => {
    const type = (block as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !TYPES.has(type)) {
      throw new TypeError(
        `toolResult content[${index}] is not a content block (its type is ${JSON.stringify(type) ?? 'missing'}); make it with content.text, content.image, content.audio, content.resourceLink or content.resource.`,
      );
    }
  });
  const structured = init.structuredContent;
  if (
    structured !== undefined &&
    (structured === null || typeof structured !== 'object' || Array.isArray(structured))
  ) {
    throw new TypeError(
      `toolResult structuredContent must be an object, received ${structured === null ? 'null' : Array.isArray(structured) ? 'an array' : typeof structured}; wrap it, e.g. { items: [...] }.`,
    );
  }
  const result = {
    content: Object.freeze([...blocks]),
    ...(structured !== undefined ? { structuredContent: structured } : {}),
  };
  return Object.freeze(markCarried(result, { value: result, result, checked: structured, blocks: true }));
}
