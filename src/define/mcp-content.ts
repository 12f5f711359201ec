/**
 * The MCP wire shapes a resource or a prompt answers with, written out here so that the root entry
 * never loads the MCP SDK. They match revision 2025-11-25's schema; a value of the SDK's types fits.
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

/** The text of a resource, as `resources/read` answers it. */
export interface TextResourceContents {
  readonly uri: string;
  readonly mimeType?: string;
  readonly text: string;
  readonly _meta?: WireMeta;
}

/** The bytes of a resource, base64, as `resources/read` answers them. */
export interface BlobResourceContents {
  readonly uri: string;
  readonly mimeType?: string;
  readonly blob: string;
  readonly _meta?: WireMeta;
}

/** One item of a `resources/read` answer. */
export type ResourceContents = TextResourceContents | BlobResourceContents;

/** The answer of `resources/read`. */
export interface ReadResourceResult {
  readonly contents: readonly ResourceContents[];
  readonly _meta?: WireMeta;
}

/** A content block of a prompt message. */
export type PromptContent =
  | {
      readonly type: 'text';
      readonly text: string;
      readonly annotations?: ContentAnnotations;
      readonly _meta?: WireMeta;
    }
  | {
      readonly type: 'image' | 'audio';
      /** Base64. */
      readonly data: string;
      readonly mimeType: string;
      readonly annotations?: ContentAnnotations;
      readonly _meta?: WireMeta;
    }
  | {
      readonly type: 'resource';
      readonly resource: ResourceContents;
      readonly annotations?: ContentAnnotations;
      readonly _meta?: WireMeta;
    }
  | {
      readonly type: 'resource_link';
      readonly uri: string;
      readonly name: string;
      readonly title?: string;
      readonly description?: string;
      readonly mimeType?: string;
      readonly size?: number;
      readonly annotations?: ContentAnnotations;
      readonly _meta?: WireMeta;
    };

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
