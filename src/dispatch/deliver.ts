import type { JsonSchema } from '../contract/index.js';
import { type Completed, Delivered } from './completed.js';
import type { Envelope } from './envelope.js';
import type { JsonValue } from './serialize.js';
import { shortenJson } from './shorten-json.js';
import { jsonSchemaResultValidator } from './validate-result.js';

/** Room kept for the envelope around a result that is cut: `ok`, the `truncated` marker, its message. */
const ENVELOPE_ROOM = 160;

/**
 * Steps 6 and 7 of the pipeline: the success envelope, cut to `maxChars` with a visible marker when it
 * is longer: shortened as a value when the tool has a return schema and the shorter value still
 * matches it (so MCP can still send it as `structuredContent`), else cut as text.
 */
export function deliver(result: JsonValue, schema: JsonSchema | undefined, maxChars: number): Completed {
  const resultText = JSON.stringify(result);
  if (resultText.length <= maxChars - ENVELOPE_ROOM) {
    return new Delivered(result, `{"ok":true,"result":${resultText}}`);
  }
  const shortened =
    schema && result !== null && typeof result === 'object'
      ? shorten(result, resultText.length, schema, maxChars)
      : undefined;
  return shortened ?? cut(result, resultText, maxChars);
}

/** The result shortened as a value (first items, first characters), when that still matches `schema`. */
function shorten(
  result: JsonValue,
  totalChars: number,
  schema: JsonSchema,
  maxChars: number,
): Completed | undefined {
  let fraction = (maxChars - ENVELOPE_ROOM) / totalChars;
  for (let attempt = 0; attempt < 16; attempt++) {
    const shown = shortenJson(result, fraction);
    const shownChars = JSON.stringify(shown).length;
    const envelope: Envelope = {
      ok: true,
      result: shown,
      truncated: {
        totalChars,
        shownChars,
        message: `The result was shortened to ${shownChars} of ${totalChars} characters of JSON: lists keep their first items and strings their first characters. Ask for a smaller part (a narrower range, path or query) to see the rest.`,
      },
    };
    const text = JSON.stringify(envelope);
    if (text.length <= maxChars) {
      return jsonSchemaResultValidator(schema)(shown).ok ? { envelope, text } : undefined;
    }
    fraction *= (maxChars / text.length) * 0.9;
  }
  return undefined;
}

/** The result's text cut to its first characters. */
function cut(result: JsonValue, resultText: string, maxChars: number): Completed {
  const source = typeof result === 'string' ? result : resultText;
  const total = source.length;
  const isText = typeof result === 'string';
  // Escaping can make the shown part longer than its length in the source, so shrink until it fits.
  let keep = Math.min(total, maxChars - ENVELOPE_ROOM);
  let envelope: Envelope;
  let text: string;
  for (;;) {
    let shown = source.slice(0, keep);
    if (/[\uD800-\uDBFF]$/.test(shown)) shown = shown.slice(0, -1); // never split a surrogate pair
    envelope = {
      ok: true,
      result: shown,
      truncated: {
        totalChars: total,
        shownChars: shown.length,
        message: `The result was cut to its first ${shown.length} of ${total} characters${isText ? '' : ' of JSON'}. Ask for a smaller part (a narrower range, path or query) to see the rest.`,
      },
    };
    text = JSON.stringify(envelope);
    if (text.length <= maxChars || keep === 0) break;
    keep = Math.max(0, Math.floor(keep * (maxChars / text.length)) - 8);
  }
  return { envelope, text };
}
