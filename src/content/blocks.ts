/**
 * The MCP wire shapes of content (revision 2025-11-25 and later), written out here so that the root
 * entry never loads the MCP SDK: the blocks a tool's result, a prompt's message and an embedded
 * resource carry, and a resource's contents. Binary data is base64, as on the wire. A value of the
 * SDK's types fits.
 */

/** Who a piece of content is for, how much it matters and when it last changed. */
export interface ContentAnnotations {
  readonly audience?: readonly ('user' | 'assistant')[];
  /** 0 (least important) to 1 (effectively required). */
  readonly priority?: number;
  /** ISO 8601, e.g. `2026-01-12T15:00:58Z`. */
  readonly lastModified?: string;
}

/** What `_meta` may carry on the wire. */
export type WireMeta = { readonly [key: string]: unknown };

/** Plain text. */
export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
  /** Who it is for, how much it matters. */
  readonly annotations?: ContentAnnotations;
  readonly _meta?: WireMeta;
}

/** An image: base64 `data` and its MIME type (`image/png`, `image/jpeg`, …). */
export interface ImageBlock {
  readonly type: 'image';
  readonly data: string;
  readonly mimeType: string;
  /** Who it is for, how much it matters. */
  readonly annotations?: ContentAnnotations;
  readonly _meta?: WireMeta;
}

/** A sound: base64 `data` and its MIME type (`audio/wav`, `audio/mpeg`, …). */
export interface AudioBlock {
  readonly type: 'audio';
  readonly data: string;
  readonly mimeType: string;
  /** Who it is for, how much it matters. */
  readonly annotations?: ContentAnnotations;
  readonly _meta?: WireMeta;
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
  /** Who it is for, how much it matters. */
  readonly annotations?: ContentAnnotations;
  readonly _meta?: WireMeta;
}

/** A resource's contents as text, as `resources/read` answers them and a block embeds them. */
export interface TextResourceContents {
  readonly uri: string;
  readonly mimeType?: string;
  readonly text: string;
  readonly _meta?: WireMeta;
}

/** A resource's contents as base64 `blob`, as `resources/read` answers them and a block embeds them. */
export interface BlobResourceContents {
  readonly uri: string;
  readonly mimeType?: string;
  readonly blob: string;
  readonly _meta?: WireMeta;
}

/** One item of a resource's contents. */
export type ResourceContents = TextResourceContents | BlobResourceContents;

/** A resource's contents, embedded in the result. */
export interface EmbeddedResourceBlock {
  readonly type: 'resource';
  readonly resource: ResourceContents;
  /** Who it is for, how much it matters. */
  readonly annotations?: ContentAnnotations;
  readonly _meta?: WireMeta;
}

/** One block of a tool's result, or of a prompt's message. */
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
