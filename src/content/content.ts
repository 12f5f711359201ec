import { base64Of } from './base64.js';
import type {
  AudioBlock,
  EmbeddedResourceBlock,
  ImageBlock,
  ResourceLinkBlock,
  TextBlock,
} from './blocks.js';

/** What {@link content.resourceLink} takes: the link's fields but its `type`. */
export type ResourceLinkInit = Omit<ResourceLinkBlock, 'type'>;

/** What {@link content.resource} takes: a URI and either `text` or the bytes (or base64) as `blob`. */
export type EmbeddedResourceInit =
  | { readonly uri: string; readonly mimeType?: string; readonly text: string }
  | { readonly uri: string; readonly mimeType?: string; readonly blob: Uint8Array | string };

/**
 * Makes the content blocks a tool returns with {@link toolResult}: each checks its input and encodes
 * bytes as base64, so what it makes is what MCP sends. A wrong input throws a `TypeError` (the call
 * then ends in the tool's failure envelope).
 *
 * @example
 * execute: async ({ url }) =>
 *   toolResult({
 *     content: [content.text(`Screenshot of ${url}`), content.image(await shoot(url), 'image/png')],
 *   }),
 */
export const content = Object.freeze({
  /** A text block. */
  text(text: string): TextBlock {
    if (typeof text !== 'string')
      throw new TypeError(`content.text takes a string, received ${typeof text}.`);
    return { type: 'text', text };
  },
  /** An image block from its bytes or base64, and its MIME type (`image/png`, …). */
  image(data: Uint8Array | string, mimeType: string): ImageBlock {
    return {
      type: 'image',
      data: base64Of(data, 'content.image'),
      mimeType: mimeOf(mimeType, 'content.image'),
    };
  },
  /** An audio block from its bytes or base64, and its MIME type (`audio/wav`, …). */
  audio(data: Uint8Array | string, mimeType: string): AudioBlock {
    return {
      type: 'audio',
      data: base64Of(data, 'content.audio'),
      mimeType: mimeOf(mimeType, 'content.audio'),
    };
  },
  /** A link to a resource the client may read (its contents are not sent). */
  resourceLink(link: ResourceLinkInit): ResourceLinkBlock {
    if (typeof link?.uri !== 'string' || typeof link.name !== 'string') {
      throw new TypeError(
        'content.resourceLink takes { uri, name } (both strings), with title, description, mimeType and size optional.',
      );
    }
    return {
      type: 'resource_link',
      uri: link.uri,
      name: link.name,
      ...(link.title !== undefined ? { title: link.title } : {}),
      ...(link.description !== undefined ? { description: link.description } : {}),
      ...(link.mimeType !== undefined ? { mimeType: mimeOf(link.mimeType, 'content.resourceLink') } : {}),
      ...(link.size !== undefined ? { size: link.size } : {}),
    };
  },
  /** A resource's contents embedded in the result: `text`, or `blob` as bytes or base64. */
  resource(resource: EmbeddedResourceInit): EmbeddedResourceBlock {
    if (typeof resource?.uri !== 'string') {
      throw new TypeError('content.resource takes { uri, text } or { uri, blob }, with mimeType optional.');
    }
    const mime =
      resource.mimeType !== undefined ? { mimeType: mimeOf(resource.mimeType, 'content.resource') } : {};
    if ('text' in resource && typeof resource.text === 'string') {
      return { type: 'resource', resource: { uri: resource.uri, ...mime, text: resource.text } };
    }
    if ('blob' in resource && resource.blob !== undefined) {
      return {
        type: 'resource',
        resource: { uri: resource.uri, ...mime, blob: base64Of(resource.blob, 'content.resource') },
      };
    }
    throw new TypeError(
      `content.resource for "${resource.uri}" has neither text (a string) nor blob (bytes or base64); give one of them.`,
    );
  },
});

// A type and a subtype, as RFC 6838 spells them; parameters (`; charset=utf-8`) allowed.
const MIME_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(?:\s*;.*)?$/;

function mimeOf(mimeType: string, what: string): string {
  if (typeof mimeType === 'string' && mimeType.length <= 255 && MIME_TYPE.test(mimeType)) return mimeType;
  throw new TypeError(
    `${what} takes a MIME type such as "image/png", received ${typeof mimeType === 'string' ? JSON.stringify(mimeType.slice(0, 80)) : typeof mimeType}.`,
  );
}
