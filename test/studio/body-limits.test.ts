// The studio's own HTTP server holds request bodies to the limits the MCP HTTP path holds: an oversized
// body is 413 and an over-deep one 400, each with a JSON error, never a 500; a real studio on loopback.
import { request } from 'node:http';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Registry } from '../../src/index.js';
import { definePolicy } from '../../src/policy/index.js';
import { type RunningStudio, startStudio } from '../../src/studio/index.js';
import { notesTools } from '../fixtures/studio/notes-tools.js';

/** One POST; `chunked` sends the body in pieces with no Content-Length. */
function post(
  url: string,
  body: string,
  chunked = false,
): Promise<{ status: number; type: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(chunked ? {} : { 'Content-Length': String(Buffer.byteLength(body)) }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            type: response.headers['content-type'],
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    // The server may answer and close before the whole of an oversized body is sent.
    outgoing.on('error', reject);
    if (chunked) {
      for (let start = 0; start < body.length; start += 64 * 1024)
        outgoing.write(body.slice(start, start + 64 * 1024));
      outgoing.end();
    } else {
      outgoing.end(body);
    }
  });
}

let studio: RunningStudio;
const state = { notes: new Map([['todo.md', 'buy milk']]), deletes: 0 };
beforeAll(async () => {
  studio = await startStudio({
    label: 'notes',
    policy: definePolicy({ rules: [{ id: 'notes-writable', action: 'allow', tool: 'write_note' }] }),
    load: (options) => ({ registry: new Registry(options).register(notesTools(state)) }),
  });
});
afterAll(() => studio.close());

const deep = (levels: number) =>
  `{"tool":"write_note","arguments":{"name":"a.md","text":${'['.repeat(levels)}${']'.repeat(levels)}}}`;

test('a body over the limit is 413 with a JSON error, with or without a Content-Length', async () => {
  const big = JSON.stringify({
    tool: 'write_note',
    arguments: { name: 'a.md', text: 'x'.repeat(2 * 1024 * 1024) },
  });
  for (const chunked of [false, true]) {
    const response = await post(`${studio.url}api/call`, big, chunked);
    expect(response.status).toBe(413);
    expect(response.type).toContain('application/json');
    expect(JSON.parse(response.text).error.type).toBe('too_large');
  }
});

test('a body nested deeper than the limit is 400 with a JSON error on every endpoint that reads one', async () => {
  // 100,000 levels fit well within the size limit: only a depth rule stops them.
  for (const path of ['api/call', 'api/approvals/none']) {
    const response = await post(`${studio.url}${path}`, deep(100_000));
    expect(response.status).toBe(400);
    expect(response.type).toContain('application/json');
    expect(JSON.parse(response.text).error.type).toBe('too_deep');
  }
  // Brackets inside a string are text, not depth: such a call still runs.
  const quoted = await post(
    `${studio.url}api/call`,
    JSON.stringify({ tool: 'write_note', arguments: { name: 'b.md', text: '['.repeat(10_000) } }),
  );
  expect(quoted.status).toBe(200);
  // A depth at the limit is read; one level past it is refused.
  expect((await post(`${studio.url}api/call`, deep(60))).status).not.toBe(400);
  expect(JSON.parse((await post(`${studio.url}api/call`, deep(64))).text).error?.type).toBe('too_deep');
});
