// Two `toolpact serve --http` processes of one deployment, started as a user starts them (the bin,
// the same module, the same TOOLPACT_STATE_KEY, nothing else shared): a revision 2026-07-28 approval
// asked by one process is completed by the other, and a state is used once in a process.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { toolpactArgs } from '../support/cli-build.js';
import { ROOT } from './support/wire.js';

const VERSION = '2026-07-28';
const KEY = '0123456789abcdef'.repeat(4);
const form = { elicitation: { form: {} } };

interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  readonly stderr: () => string;
}

let dir: string;
let notes: string;
const served: Served[] = [];

/** `toolpact serve <module> --http --port 0`, resolved once it says where it listens. */
function serve(env: Record<string, string>): Promise<Served> {
  const child = spawn(process.execPath, toolpactArgs('serve', 'notes.mts', '--http', '--port', '0'), {
    cwd: dir,
    env: { ...process.env, FIXTURE_NOTES_DIR: notes, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
      if (url) resolve({ child, url, stderr: () => stderr });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
}

async function call(url: string, params: Record<string, unknown>) {
  return (await message(url, params)).result;
}

/** The JSON-RPC answer to one `tools/call`: its result, or its protocol error. */
async function message(url: string, params: Record<string, unknown>) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': String(params.name),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': VERSION,
          'io.modelcontextprotocol/clientCapabilities': form,
          'io.modelcontextprotocol/clientInfo': { name: 'replicas', version: '1' },
        },
      },
    }),
  });
  const raw = await response.text();
  const line = raw.startsWith('{') ? raw : (raw.split('\n').find((each) => each.startsWith('data: ')) ?? '');
  return JSON.parse(line.replace(/^data: /, '')) as {
    result: { resultType: string; requestState?: string; content?: { text: string }[] };
    error?: { code: number; message: string };
  };
}

function envelopeOf(result: { content?: { text: string }[] }) {
  return JSON.parse(result.content?.[0]?.text ?? 'null');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-replicas-'));
  notes = join(dir, 'notes');
  mkdirSync(notes);
  writeFileSync(
    join(dir, 'notes.mts'),
    [
      `import { fixtureTools } from ${JSON.stringify(join(ROOT, 'test', 'fixtures', 'mcp', 'tools.ts'))};`,
      `export const tools = fixtureTools(process.env.FIXTURE_NOTES_DIR, () => {});`,
      '',
    ].join('\n'),
  );
  served.push(await serve({ TOOLPACT_STATE_KEY: KEY }), await serve({ TOOLPACT_STATE_KEY: KEY }));
}, 60_000);

afterAll(async () => {
  for (const each of served) {
    each.child.kill('SIGTERM');
    await new Promise((resolve) =>
      each.child.exitCode === null ? each.child.once('exit', resolve) : resolve(0),
    );
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('replicas that share TOOLPACT_STATE_KEY', () => {
  test('an approval asked by one process is completed by the other, once', async () => {
    const [first, second] = served as [Served, Served];
    const asked = await call(first.url, {
      name: 'write_note',
      arguments: { file: 'shared.txt', text: 'hi' },
    });
    expect(asked.resultType).toBe('input_required');
    expect(existsSync(join(notes, 'shared.txt'))).toBe(false);

    const retry = {
      name: 'write_note',
      arguments: { file: 'shared.txt', text: 'hi' },
      inputResponses: { approval: { action: 'accept', content: { decision: 'once' } } },
      requestState: asked.requestState,
    };
    const done = await call(second.url, retry);
    expect(done.resultType).toBe('complete');
    expect(envelopeOf(done)).toMatchObject({ ok: true, result: { written: 'shared.txt' } });
    expect(readFileSync(join(notes, 'shared.txt'), 'utf8')).toBe('hi');

    // The same state again on the process that ran it: used.
    const replayed = await call(second.url, retry);
    expect(envelopeOf(replayed)).toMatchObject({ ok: false, error: { type: 'permission_denied' } });
    expect(envelopeOf(replayed).error.message).toMatch(/already/);
  });

  test('a process with another key cannot complete it', async () => {
    const other = await serve({ TOOLPACT_STATE_KEY: 'f'.repeat(64) });
    served.push(other);
    const asked = await call(served[0]!.url, {
      name: 'write_note',
      arguments: { file: 'other.txt', text: 'x' },
    });
    const refused = await message(other.url, {
      name: 'write_note',
      arguments: { file: 'other.txt', text: 'x' },
      inputResponses: { approval: { action: 'accept', content: { decision: 'once' } } },
      requestState: asked.requestState,
    });
    // A state another key sealed cannot be read: the request is refused as invalid, and nothing runs.
    expect(refused.result).toBeUndefined();
    expect(refused.error?.code).toBe(-32602);
    expect(existsSync(join(notes, 'other.txt'))).toBe(false);
  });
});
