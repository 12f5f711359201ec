import { decodedBytes } from './base64.js';
import type { ContentBlock } from './blocks.js';
import type { ContentResult } from './carried.js';

/** The limits one result's blocks are kept within. */
export interface ContentLimits {
  /** Characters of text across every block (the registry's `maxResultChars`). */
  readonly maxChars: number;
  /** Decoded bytes of binary data (images, audio, embedded blobs) across every block. */
  readonly maxBinaryBytes: number;
}

/** The default of `maxBinaryBytes`: 10 MiB of decoded bytes per result. */
export const DEFAULT_MAX_BINARY_BYTES = 10 * 1024 * 1024;

// Room kept for the cut marker and the closing notice, and the least each block counts for, so that
// a result of many empty blocks is bounded too.
const NOTICE_ROOM = 480;
const BLOCK_COST = 16;

interface Budget {
  chars: number;
  bytes: number;
  cut: boolean;
  leftText: number;
  leftBinary: number;
  leftOther: number;
}

/**
 * The result within `limits`: blocks are kept in order while their text fits; the text block that
 * does not fit is cut with a visible marker, and the text after it is left out; a binary block whose
 * data would pass the byte limit is replaced by a text block that says what was dropped and why; a
 * `structuredContent` or `_meta` longer than the text limit is left out. Whatever is left out is
 * counted in a closing text block. Answers the same object when everything fits.
 *
 * @example
 * limitContent(result, { maxChars: 20_000, maxBinaryBytes: DEFAULT_MAX_BINARY_BYTES });
 */
export function limitContent(result: ContentResult, limits: ContentLimits): ContentResult {
  const blocks: readonly unknown[] = Array.isArray(result.content) ? result.content : [];
  const budget: Budget = {
    chars: Math.max(limits.maxChars - NOTICE_ROOM, 0),
    bytes: limits.maxBinaryBytes,
    cut: false,
    leftText: 0,
    leftBinary: 0,
    leftOther: 0,
  };
  const kept: ContentBlock[] = [];
  let changed = blocks !== result.content;
  for (const block of blocks) {
    const limited = limitBlock(block, budget, limits);
    if (limited !== block) changed = true;
    if (limited) kept.push(limited);
  }
  const left = budget.leftText + budget.leftBinary + budget.leftOther;
  // Under a limit smaller than the notice itself, the notice is cut too: the whole never passes it.
  if (left > 0) kept.push({ type: 'text', text: leftOutNotice(budget, limits).slice(0, limits.maxChars) });
  const structuredTooLong =
    result.structuredContent !== undefined && jsonLength(result.structuredContent) > limits.maxChars;
  const metaTooLong = result._meta !== undefined && jsonLength(result._meta) > limits.maxChars;
  if (!changed && !structuredTooLong && !metaTooLong) return result;
  const { structuredContent: _structured, _meta: _dropped, ...rest } = result;
  return {
    ...rest,
    content: kept,
    ...(result.structuredContent !== undefined && !structuredTooLong
      ? { structuredContent: result.structuredContent }
      : {}),
    ...(result._meta !== undefined && !metaTooLong ? { _meta: result._meta } : {}),
  };
}

/** The block as it is, changed, or undefined when it is left out (and counted). */
function limitBlock(block: unknown, budget: Budget, limits: ContentLimits): ContentBlock | undefined {
  const record = (block ?? {}) as { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown };
  if (record.type === 'text' && typeof record.text === 'string') {
    const text = keepText(record.text, budget);
    return text === undefined
      ? undefined
      : text === record.text
        ? (block as ContentBlock)
        : { type: 'text', text };
  }
  if ((record.type === 'image' || record.type === 'audio') && typeof record.data === 'string') {
    return keepBinary(block as ContentBlock, record.type, record.data, record.mimeType, budget, limits);
  }
  if (record.type === 'resource') {
    const resource = (block as { resource?: { text?: unknown; blob?: unknown; mimeType?: unknown } })
      .resource;
    if (typeof resource?.text === 'string') {
      const text = keepText(resource.text, budget);
      if (text === undefined) return undefined;
      return text === resource.text
        ? (block as ContentBlock)
        : ({ ...(block as object), resource: { ...resource, text } } as ContentBlock);
    }
    if (typeof resource?.blob === 'string') {
      return keepBinary(block as ContentBlock, 'resource', resource.blob, resource.mimeType, budget, limits);
    }
  }
  // A resource link, or a block of a kind this version does not know: kept whole while it fits.
  const size = jsonLength(block) + BLOCK_COST;
  if (size <= budget.chars) {
    budget.chars -= size;
    return block as ContentBlock;
  }
  budget.leftOther++;
  return undefined;
}

function keepText(text: string, budget: Budget): string | undefined {
  const size = text.length + BLOCK_COST;
  if (!budget.cut && size <= budget.chars) {
    budget.chars -= size;
    return text;
  }
  if (budget.cut || budget.chars <= BLOCK_COST) {
    budget.leftText++;
    return undefined;
  }
  budget.cut = true;
  let shown = text.slice(0, budget.chars - BLOCK_COST);
  if (/[\uD800-\uDBFF]$/.test(shown)) shown = shown.slice(0, -1); // never split a surrogate pair
  budget.chars = 0;
  return `${shown}\n[toolpact: cut to the first ${shown.length} of ${text.length} characters to keep the result within its limit. Ask for a smaller part (a narrower range, path or query) to see the rest.]`;
}

function keepBinary(
  block: ContentBlock,
  kind: string,
  data: string,
  mimeType: unknown,
  budget: Budget,
  limits: ContentLimits,
): ContentBlock | undefined {
  const bytes = decodedBytes(data);
  if (bytes <= budget.bytes && BLOCK_COST <= budget.chars) {
    budget.bytes -= bytes;
    budget.chars -= BLOCK_COST;
    return block;
  }
  const type = typeof mimeType === 'string' ? ` (${mimeType.slice(0, 80)})` : '';
  const text = `[toolpact: ${kind === 'resource' ? 'an embedded resource' : `an ${kind}`}${type} of ${bytes} bytes was left out: the binary data of one result may hold at most ${limits.maxBinaryBytes} bytes. Ask for a smaller ${kind === 'image' ? 'image (a part, or a lower resolution)' : 'part'}.]`;
  if (text.length + BLOCK_COST <= budget.chars) {
    budget.chars -= text.length + BLOCK_COST;
    return { type: 'text', text };
  }
  budget.leftBinary++;
  return undefined;
}

function leftOutNotice(budget: Budget, limits: ContentLimits): string {
  const parts = [
    budget.leftText > 0 ? `${budget.leftText} text` : '',
    budget.leftBinary > 0 ? `${budget.leftBinary} binary` : '',
    budget.leftOther > 0 ? `${budget.leftOther} other` : '',
  ].filter(Boolean);
  return `[toolpact: ${parts.join(', ')} block(s) were left out to keep the result within ${limits.maxChars} characters of text and ${limits.maxBinaryBytes} bytes of binary data. Ask for a smaller part to see them.]`;
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
