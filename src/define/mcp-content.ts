/**
 * The MCP wire shapes a resource or a prompt answers with, built on the content shapes of
 * `src/content/blocks.ts` (one definition of a block for tools, prompts and resources), so that the
 * root entry never loads the MCP SDK. They match revision 2025-11-25's schema; a value of the SDK's
 * types fits.
 */
import type {
  AudioBlock,
  EmbeddedResourceBlock,
  ImageBlock,
  ResourceContents,
  ResourceLinkBlock,
  TextBlock,
  WireMeta,
} from '../content/blocks.js';

export type {
  BlobResourceContents,
  ContentAnnotations,
  ResourceContents,
  TextResourceContents,
  WireMeta,
} from '../content/blocks.js';

/** The answer of `resources/read`. */
export interface ReadResourceResult {
  readonly contents: readonly ResourceContents[];
  readonly _meta?: WireMeta;
}

/** A content block of a prompt message: any block a tool's result may hold. */
export type PromptContent = TextBlock | ImageBlock | AudioBlock | ResourceLinkBlock | EmbeddedResourceBlock;

/** One message of a prompt. */
export interface PromptMessage {
  readonly role: 'user' | 'assistant';
  readonly content: PromptContent;
}

/** The answer of `prompts/get`. */
export interface GetPromptResult {
  readonly description?: string;
  readonly messages: readonly PromptMessage[];
  readonly _meta?: WireMeta;
}
