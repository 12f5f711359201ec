/** Stdin for a stdio server whose tools are still loading: the opening is answered at once. */
import { PassThrough, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** What a client may send before the tools are ready: the opening of either era, and ping. */
const ANSWERED_AT_ONCE = new Set(['initialize', 'notifications/initialized', 'server/discover', 'ping']);
const MAX_OPENING_LINE = 1 << 20;

/**
 * Stdin as the stdio server reads it, with the opening answered at once and the rest held until the
 * tools are ready: lines (newline-delimited JSON-RPC) pass as they come while their method is
 * `initialize`, `server/discover` or `ping`; from the first other line on, stdin is paused (so a
 * client cannot pile up messages) and the lines go on, in order, once `ready` resolves. `begin` is
 * called at the first method other than `server/discover`. Once begun and ready, the bytes pass
 * untouched, unread.
 *
 * @example
 * await serveStdio(registry, { stdin: openingFirst(process.stdin, { begin, ready }) });
 */
export function openingFirst(
  input: Readable,
  tools: { readonly begin?: (() => void) | undefined; readonly ready?: (() => Promise<void>) | undefined },
): Readable {
  const output = new PassThrough();
  const decoder = new StringDecoder('utf8');
  let state: 'opening' | 'held' | 'passing' = 'opening';
  let begun = false;
  let isReady = !tools.ready;
  let ready: Promise<void> | undefined;
  // The part of a line not yet ended by a newline, while lines are read.
  let partial = '';
  const startTools = () => {
    if (begun) return;
    begun = true;
    tools.begin?.();
    ready = (tools.ready?.() ?? Promise.resolve()).then(
      () => {
        isReady = true;
      },
      () => {
        isReady = true;
      },
    );
  };
  // What came from the first held line on.
  let held = '';
  const hold = (text: string) => {
    state = 'held';
    held = text;
    input.pause();
    void (ready ?? Promise.resolve()).then(() => {
      if (output.destroyed) return;
      state = 'passing';
      output.write(held);
      held = '';
      input.resume();
    });
  };
  const onData = (chunk: Buffer | string) => {
    if (state === 'passing') {
      output.write(chunk);
      return;
    }
    const text = partial + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
    partial = '';
    if (state === 'held') {
      held += text;
      return;
    }
    let start = 0;
    while (start < text.length) {
      const end = text.indexOf('\n', start);
      if (end === -1) {
        partial = text.slice(start);
        // A line this long is no opening message: it waits with the rest.
        if (partial.length > MAX_OPENING_LINE) {
          startTools();
          hold(partial);
          partial = '';
        }
        return;
      }
      const method = methodOf(text.slice(start, end));
      if (method !== undefined && method !== 'server/discover') startTools();
      if (begun && isReady) {
        state = 'passing';
        output.write(text.slice(start));
        return;
      }
      if (method !== undefined && !ANSWERED_AT_ONCE.has(method)) {
        hold(text.slice(start));
        return;
      }
      output.write(text.slice(start, end + 1));
      start = end + 1;
    }
  };
  // A paused stdin ends only once resumed: held lines are passed on before the end.
  const onEnd = () => {
    const rest = state === 'passing' ? '' : partial + decoder.end();
    if (rest) output.write(rest);
    output.end();
  };
  const onError = (error: Error) => output.destroy(error);
  input.on('data', onData);
  input.once('end', onEnd);
  input.once('error', onError);
  output.once('close', () => {
    input.off('data', onData);
    input.off('end', onEnd);
    input.off('error', onError);
    input.pause();
  });
  return output;
}

/** The `method` of a JSON-RPC line, or undefined (a response, or not JSON: the server says what is wrong). */
function methodOf(line: string): string | undefined {
  try {
    const message: unknown = JSON.parse(line);
    const method = (message as { method?: unknown } | null)?.method;
    return typeof method === 'string' ? method : undefined;
  } catch {
    return undefined;
  }
}
