/**
 * The content blocks a tool can answer with, as MCP's `CallToolResult.content` carries them
 * (revision 2025-11-25 and later). Binary data is base64, as on the wire.
 */

/** Plain text. */
export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
}

/** An image: base64 `data` and its MIME type (`image/png`, `image/jpeg`, …). */
export interface ImageBlock {
  readonly type: 'image';
  readonly data: string;
  readonly mimeType: string;
}

/** A sound: base64 `data` and its MIME type (`audio/wav`, `audio/mpeg`, …). */
export interface AudioBlock {
  readonly type: 'audio';
  readonly data: string;
  readonly mimeType: string;
}

/** A pointer to a resource the client may read, not its contents. */
export interface ResourceLinkBlock {
  readonly type: 'resource_link';
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  /** Its size in bytes, when known. */
  readonly size?: number;
}

/** A resource's contents as text. */
export interface TextResourceContents {
  readonly uri: string;
  readonly mimeType?: string;
  readonly text: string;
}

/** A resource's contents as base64 `blob`. */
export interface BlobResourceContents {
  readonly uri: string;
  readonly mimeType?: string;
  readonly blob: string;
}

/** A resource's contents, embedded in the result. */
export interface EmbeddedResourceBlock {
  readonly type: 'resource';
  readonly resource: TextResourceContents | BlobResourceContents;
}

/** One block of a tool's result. */
export type ContentBlock = TextBlock | ImageBlock | AudioBlock | ResourceLinkBlock | EmbeddedResourceBlock;

/** The type of a block: `text`, `image`, `audio`, `resource_link` or `resource`. */
export type ContentType = ContentBlock['type'];

/** Every block type, in a stable order (for docs, provider tables and meta-tests). */
export const CONTENT_BLOCK_TYPES: readonly ContentType[] = Object.freeze([
  'text',
  'image',
  'audio',
  'resource_link',
  'resource',
]);
