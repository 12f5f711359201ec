import type { IncomingMessage } from 'node:http';

/** Why a request body was not read as JSON. */
export type JsonBodyFailure =
  | {
      readonly reason: 'too_large';
      readonly status: 413;
      readonly code: -32600;
      readonly limit: number;
      readonly received: number;
    }
  | { readonly reason: 'too_deep'; readonly status: 400; readonly code: -32600; readonly limit: number }
  | { readonly reason: 'not_json'; readonly status: 400; readonly code: -32700 };

/** A request body read as JSON, or why it was not. */
export type JsonBody =
  | { readonly ok: true; readonly value: unknown }
  | ({ readonly ok: false } & JsonBodyFailure);

/** The bounds {@link readJsonBody} holds a request body to. */
export interface JsonBodyLimits {
  /** Largest body, in bytes. */
  readonly maxBytes: number;
  /** Deepest nesting of arrays and objects. */
  readonly maxDepth: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * The deepest nesting of arrays and objects in a JSON text, counted in one pass over its bytes
 * (brackets inside strings do not count), stopping as soon as it passes `limit`. It does not check
 * that the text is JSON: it runs before `JSON.parse`, so that no parser or validator after it ever
 * recurses deeper than `limit`. UTF-8 continuation bytes never equal these ASCII bytes.
 *
 * @example
 * jsonDepth(Buffer.from('{"a":[1,"]]"]}'), 64); // 2
 */
export function jsonDepth(bytes: Uint8Array, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index];
    if (inString) {
      if (byte === BACKSLASH) index++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if ((byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) && depth > 0) {
      // Never below zero: stray closers first must not buy an attacker extra levels.
      depth--;
    }
  }
  return deepest;
}

/**
 * Reads a request body as JSON within `limits`: a `Content-Length` over `maxBytes` is refused before
 * a byte is read, a body that grows past it is refused as soon as it does (and the rest is not kept),
 * and one nested deeper than `maxDepth` is refused before it is parsed.
 *
 * @example
 * const body = await readJsonBody(request, { maxBytes: 4 * 1024 * 1024, maxDepth: 64 });
 * if (!body.ok) answer(body.status, body.code, body.reason);
 */
export async function readJsonBody(request: IncomingMessage, limits: JsonBodyLimits): Promise<JsonBody> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    return {
      ok: false,
      reason: 'too_large',
      status: 413,
      code: -32600,
      limit: limits.maxBytes,
      received: declared,
    };
  }
  const collected = await collect(request, limits.maxBytes);
  if (typeof collected === 'number') {
    return {
      ok: false,
      reason: 'too_large',
      status: 413,
      code: -32600,
      limit: limits.maxBytes,
      received: collected,
    };
  }
  const bytes = collected;
  if (jsonDepth(bytes, limits.maxDepth) > limits.maxDepth) {
    return { ok: false, reason: 'too_deep', status: 400, code: -32600, limit: limits.maxDepth };
  }
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch {
    return { ok: false, reason: 'not_json', status: 400, code: -32700 };
  }
}

// The body, or how many bytes had come when it passed `maxBytes`. Not `for await`: leaving that loop
// early destroys the request, and with it the socket the refusal must still be written to.
function collect(request: IncomingMessage, maxBytes: number): Promise<Buffer | number> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      stop();
      request.pause();
      resolve(size);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', onError);
  });
}

/**
 * The words for a {@link JsonBodyFailure}: what was wrong, what came, what to do.
 *
 * @example
 * jsonBodyMessage({ reason: 'too_deep', status: 400, code: -32600, limit: 64 });
 */
export function jsonBodyMessage(failure: JsonBodyFailure): string {
  switch (failure.reason) {
    case 'too_large':
      return `Invalid request: the body is larger than ${failure.limit} bytes (received at least ${failure.received}). Send a smaller request.`;
    case 'too_deep':
      return `Invalid request: the JSON nests arrays and objects more than ${failure.limit} deep. Send arguments nested at most ${failure.limit} levels.`;
    case 'not_json':
      return 'Parse error: the request body is not valid JSON. Send one JSON-RPC message (or a batch) as JSON.';
    default: {
      const unreachable: never = failure;
      return unreachable;
    }
  }
}
