/**
 * Content blocks a tool can answer with (text, image, audio, resource links, embedded resources).
 */

export type {
  AudioBlock,
  BlobResourceContents,
  ContentBlock,
  ContentType,
  EmbeddedResourceBlock,
  ImageBlock,
  ResourceLinkBlock,
  TextBlock,
  TextResourceContents,
} from './blocks.js';
export { CONTENT_BLOCK_TYPES } from './blocks.js';
export { content, type EmbeddedResourceInit, type ResourceLinkInit } from './content.js';
export { DEFAULT_MAX_BINARY_BYTES } from './limit-content.js';
export { type ToolResult, toolResult } from './tool-result.js';
