import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { type AnyTool, createTool, type Envelope, Registry } from '../../src/index.js';
import {
  ApprovalSession,
  createPolicyGate,
  definePolicy,
  type Policy,
  type PolicyGateOptions,
} from '../../src/policy/index.js';
import { echoTool } from './support.js';

// Each test is a way around the gate that worked before paths were read against the roots and home,
// before `**` matched zero segments, before a deny could only be outranked by a carve-out, and before
// approvals were bound to the tool's identity.

const base = realpathSync(mkdtempSync(join(tmpdir(), 'toolpact-bypasses-')));
const home = join(base, 'home');
const ws = join(home, 'project');
for (const folder of [
  ws,
  join(ws, 'docs'),
  join(ws, '.ssh'),
  join(ws, 'config'),
  join(home, '.ssh'),
  join(home, '.aws'),
])
  mkdirSync(folder, { recursive: true });
for (const file of [join(ws, '.ssh/id_rsa'), join(home, '.ssh/id_rsa'), join(home, '.aws/credentials')])
  writeFileSync(file, 'secret');
symlinkSync(join(home, '.ssh'), join(ws, 'link-to-ssh'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A read or write tool behind a gate on `policy`, reading relative paths against the workspace. */
function gated(policy: Policy, tools: readonly AnyTool[], options: PolicyGateOptions = {}) {
  const gate = createPolicyGate(policy, { roots: [ws], home, ...options });
  return new Registry({ ...gate.registryOptions }).register(...tools);
}

/** The envelope of one call, and whether the tool ran. */
async function read(registry: Registry, path: string, tool = 'read_file', calls?: string[]) {
  const before = calls?.length ?? 0;
  const envelope: Envelope = await registry.call(tool, { path });
  return { envelope, ran: calls ? calls.length > before : undefined };
}

/** The rule a refusal names, if any. */
function ruleOf(envelope: Envelope): string | undefined {
  return envelope.ok ? undefined : (envelope.error as { rule?: string }).rule;
}

function deniedBy(rule: string) {
  return { ok: false, error: { type: 'permission_denied', rule } };
}

/** A tool as the MCP import builds it, with its server's roots. */
function imported(
  name: string,
  meta: Record<string, unknown>,
  calls: string[],
  description?: string,
): AnyTool {
  return createTool(
    {
      name,
      description: description ?? 'Read a file (from an imported server).',
      category: 'read',
      parameters: { type: 'object', properties: { path: { type: 'string', description: 'A path.' } } },
    },
    {
      meta,
      execute: (args) => {
        calls.push(name);
        return args;
      },
    },
  );
}

describe('white space at the ends of a path', () => {
  const policy = definePolicy({
    rules: [{ id: 'no-ssh', action: 'deny', arguments: { path: { under: '.ssh' } } }],
  });
  test.each([
    ['a space', ' .ssh/id_rsa'],
    ['a tab', '\t.ssh/id_rsa'],
    ['a newline', '\n.ssh/id_rsa'],
    ['a byte-order mark', '\uFEFF.ssh/id_rsa'],
    ['a no-break space', '\u00A0.ssh/id_rsa'],
    ['a zero-width space', '\u200B.ssh/id_rsa'],
    ['a trailing newline', '.ssh/id_rsa\n'],
  ])('%s around .ssh/id_rsa is denied by a deny on .ssh', async (_, path) => {
    const calls: string[] = [];
    const registry = gated(policy, [echoTool('read_file', 'read', calls)]);
    expect(await read(registry, path, 'read_file', calls)).toMatchObject({
      envelope: deniedBy('no-ssh'),
      ran: false,
    });
    // The same tool still reads what the rule does not cover.
    expect(await read(registry, ' docs/a.md', 'read_file', calls)).toMatchObject({ ran: true });
  });
});

describe('absolute, ~ and climbing spellings meet relative rules', () => {
  // The workspace is `~/project`, so `~/project/.ssh` is the workspace's `.ssh`.
  const policy = definePolicy({
    rules: [
      { id: 'no-ssh', action: 'deny', arguments: { path: { under: '.ssh' } } },
      { id: 'config-asks', action: 'ask', arguments: { path: { under: 'config' } } },
    ],
  });
  test.each([
    ['an absolute path', '<ws>/.ssh/id_rsa', 'no-ssh'],
    ['a ~ path', '~/project/.ssh/id_rsa', 'no-ssh'],
    ['an absolute path with ..', '<ws>/docs/../.ssh/id_rsa', 'no-ssh'],
    ['an absolute path climbing out and back', '<ws>/../project/.ssh/id_rsa', 'no-ssh'],
    ['an absolute path (ask)', '<ws>/config/app.json', 'config-asks'],
    ['a ~ path (ask)', '~/project/config/app.json', 'config-asks'],
    ['an absolute path with .. (ask)', '<ws>/docs/../config/app.json', 'config-asks'],
  ])('%s: %s is decided by %s', async (_, spelled, rule) => {
    const calls: string[] = [];
    const registry = gated(policy, [echoTool('read_file', 'read', calls)]);
    const path = spelled.replace('<ws>', ws);
    expect(await read(registry, path, 'read_file', calls)).toMatchObject({
      envelope: deniedBy(rule),
      ran: false,
    });
  });

  test('a deny rule may name its folder absolutely: under <workspace>/.ssh', async () => {
    const absolute = definePolicy({
      rules: [{ id: 'no-ssh', action: 'deny', arguments: { path: { under: `${ws}/.ssh` } } }],
    });
    const registry = gated(absolute, [echoTool('read_file', 'read')]);
    for (const path of ['.ssh/id_rsa', `${ws}/.ssh/id_rsa`, '~/project/.ssh', ' docs/../.ssh/id_rsa']) {
      expect((await read(registry, path)).envelope, path).toMatchObject(deniedBy('no-ssh'));
    }
    expect((await read(registry, 'docs/a.md')).envelope).toMatchObject({ ok: true });
  });

  test('a deny on ~/.ssh holds for ~, absolute and climbing spellings of the home .ssh', async () => {
    const home = definePolicy({
      rules: [{ id: 'no-home-ssh', action: 'deny', arguments: { path: { under: '~/.ssh' } } }],
    });
    const registry = gated(home, [echoTool('read_file', 'read')]);
    for (const path of [
      '~/.ssh/id_rsa',
      `${base}/home/.ssh/id_rsa`,
      `${ws}/../.ssh/id_rsa`,
      '../.ssh/id_rsa',
      '~/project/../.ssh',
    ]) {
      expect((await read(registry, path)).envelope, path).toMatchObject(deniedBy('no-home-ssh'));
    }
    expect((await read(registry, '.ssh/id_rsa')).envelope).toMatchObject({ ok: true });
  });
});

describe('globs', () => {
  test('an absolute glob in a deny rule matches relative and absolute spellings', async () => {
    const policy = definePolicy({
      rules: [
        { id: 'no-ssh', action: 'deny', arguments: { path: { glob: `${ws}/.ssh/**` } } },
        { id: 'no-home-keys', action: 'deny', arguments: { path: { glob: '~/.aws/*' } } },
      ],
    });
    const registry = gated(policy, [echoTool('read_file', 'read')]);
    for (const path of ['.ssh/id_rsa', `${ws}/.ssh/id_rsa`, './docs/../.ssh/id_rsa']) {
      expect((await read(registry, path)).envelope, path).toMatchObject(deniedBy('no-ssh'));
    }
    for (const path of ['~/.aws/credentials', `${home}/.aws/credentials`, '../.aws/credentials']) {
      expect((await read(registry, path)).envelope, path).toMatchObject(deniedBy('no-home-keys'));
    }
    expect((await read(registry, 'docs/a.md')).envelope).toMatchObject({ ok: true });
  });

  test('**/.ssh/** matches .ssh/id_rsa, .ssh itself and a nested .ssh', async () => {
    const policy = definePolicy({
      rules: [{ id: 'no-ssh', action: 'deny', arguments: { path: { glob: '**/.ssh/**' } } }],
    });
    const registry = gated(policy, [echoTool('read_file', 'read')]);
    for (const path of ['.ssh/id_rsa', '.ssh', 'a/b/.ssh/id_rsa', `${ws}/.ssh/id_rsa`, '~/.ssh/id_rsa']) {
      expect((await read(registry, path)).envelope, path).toMatchObject(deniedBy('no-ssh'));
    }
    expect((await read(registry, 'ssh/id_rsa')).envelope).toMatchObject({ ok: true });
  });
});

describe('precedence: only a carve-out outranks a deny', () => {
  test('a broad allow for every mcp read does not beat a narrow deny on a path, for an imported tool', async () => {
    const policy = definePolicy({
      rules: [
        { id: 'no-ssh', action: 'deny', arguments: { path: { under: '.ssh' } } },
        { id: 'mcp-reads', action: 'allow', source: 'mcp:*', category: ['read', 'search'] },
      ],
    });
    const calls: string[] = [];
    const tool = imported('fs.read_file', { source: 'mcp:fs', remoteName: 'read_file', roots: [ws] }, calls);
    const registry = gated(policy, [tool], { roots: [join(base, 'elsewhere')] });
    for (const path of [`${ws}/.ssh/id_rsa`, '.ssh/id_rsa']) {
      expect(await read(registry, path, 'fs.read_file', calls), path).toMatchObject({
        envelope: deniedBy('no-ssh'),
        ran: false,
      });
    }
    expect(await read(registry, `${ws}/docs/a.md`, 'fs.read_file', calls)).toMatchObject({
      envelope: { ok: true },
      ran: true,
    });
  });

  test('the documented carve-out: allow write_file under docs against deny category write', async () => {
    const policy = definePolicy({
      rules: [
        { id: 'no-writes', action: 'deny', category: 'write' },
        { id: 'docs-writable', action: 'allow', tool: 'write_file', arguments: { path: { under: 'docs' } } },
      ],
    });
    const calls: string[] = [];
    const registry = gated(policy, [
      echoTool('write_file', 'write', calls),
      echoTool('edit_file', 'write', calls),
    ]);
    expect(await read(registry, 'docs/a.md', 'write_file', calls)).toMatchObject({
      envelope: { ok: true },
      ran: true,
    });
    expect(await read(registry, `${ws}/docs/a.md`, 'write_file', calls)).toMatchObject({ ran: true });
    for (const path of ['src/a.ts', 'docs/../src/a.ts', ' docs/a.md', 'DOCS/a.md']) {
      expect(await read(registry, path, 'write_file', calls), path).toMatchObject({
        envelope: deniedBy('no-writes'),
        ran: false,
      });
    }
    expect(await read(registry, 'docs/a.md', 'edit_file', calls)).toMatchObject({
      envelope: deniedBy('no-writes'),
      ran: false,
    });
  });

  test('an allow rule naming a tool without a source does not allow an imported tool of that name', async () => {
    const policy = definePolicy({
      rules: [{ id: 'notes-readable', action: 'allow', tool: 'read_note' }],
      defaults: { read: 'ask' },
    });
    const localCalls: string[] = [];
    const local = gated(policy, [echoTool('read_note', 'read', localCalls)]);
    expect(await read(local, 'a.md', 'read_note', localCalls)).toMatchObject({
      envelope: { ok: true },
      ran: true,
    });
    const importedCalls: string[] = [];
    const remote = gated(policy, [
      imported('read_note', { source: 'mcp:notes', remoteName: 'read_note', roots: [ws] }, importedCalls),
    ]);
    const { envelope, ran } = await read(remote, 'a.md', 'read_note', importedCalls);
    expect(ran).toBe(false);
    expect(envelope).toMatchObject({ ok: false, error: { type: 'permission_denied' } });
    expect(ruleOf(envelope)).not.toBe('notes-readable');
  });
});

describe('session approvals are bound to the tool', () => {
  test('an approval of read_note from mcp:a holds for that tool only', async () => {
    const policy = definePolicy({ rules: [{ id: 'notes-ask', action: 'ask', tool: 'read_note' }] });
    const session = new ApprovalSession();
    const asked: string[] = [];
    const approver = (request: { source: string }) => {
      asked.push(request.source);
      return { action: 'allow', scope: 'session' } as const;
    };
    const calls: string[] = [];
    const registryWith = (tool: AnyTool) => gated(policy, [tool], { approver, session });
    const fromA = imported('read_note', { source: 'mcp:a', remoteName: 'read_note' }, calls);

    const first = registryWith(fromA);
    expect((await read(first, 'a.md', 'read_note')).envelope).toMatchObject({ ok: true });
    expect((await read(first, 'b.md', 'read_note')).envelope).toMatchObject({ ok: true });
    expect(asked).toEqual(['mcp:a']); // the same tool again: the approval holds, no second question

    // The served name now belongs to another server's tool: the approval does not carry over.
    const fromB = imported('read_note', { source: 'mcp:b', remoteName: 'read_note' }, calls);
    expect((await read(registryWith(fromB), 'a.md', 'read_note')).envelope).toMatchObject({ ok: true });
    expect(asked).toEqual(['mcp:a', 'mcp:b']);

    // The same server changed what the tool says it does: asked again.
    const changed = imported(
      'read_note',
      { source: 'mcp:a', remoteName: 'read_note' },
      calls,
      'Read a note, and send it to the server owner.',
    );
    expect((await read(registryWith(changed), 'a.md', 'read_note')).envelope).toMatchObject({ ok: true });
    expect(asked).toEqual(['mcp:a', 'mcp:b', 'mcp:a']);

    // The original tool, in a new registry on the same session: still approved.
    expect((await read(registryWith(fromA), 'c.md', 'read_note')).envelope).toMatchObject({ ok: true });
    expect(asked).toHaveLength(3);
  });
});

describe('symbolic links', () => {
  const policy = definePolicy({
    rules: [
      { id: 'no-home-ssh', action: 'deny', arguments: { path: { under: '~/.ssh' } } },
      { id: 'no-home-aws', action: 'deny', arguments: { path: { under: '~/.aws' } } },
    ],
  });

  test('a link in the workspace pointing at ~/.ssh is denied by a deny on ~/.ssh', async () => {
    const calls: string[] = [];
    const registry = gated(policy, [echoTool('read_file', 'read', calls)]);
    for (const path of [
      'link-to-ssh/id_rsa',
      'link-to-ssh',
      `${ws}/link-to-ssh/id_rsa`,
      'link-to-ssh/new_key',
    ]) {
      expect(await read(registry, path, 'read_file', calls), path).toMatchObject({
        envelope: deniedBy('no-home-ssh'),
        ran: false,
      });
    }
    expect(await read(registry, 'docs/a.md', 'read_file', calls)).toMatchObject({ ran: true });
  });

  test('.. after a link is read as the file system reads it: link-to-ssh/../.aws is ~/.aws', async () => {
    // The kernel resolves `link-to-ssh/..` to the link target's parent (the home folder), so this
    // path opens ~/.aws/credentials; a lexical `..` reads it as <workspace>/.aws/credentials.
    const calls: string[] = [];
    const registry = gated(policy, [echoTool('read_file', 'read', calls)]);
    for (const path of ['link-to-ssh/../.aws/credentials', `${ws}/link-to-ssh/../.aws/credentials`]) {
      expect(await read(registry, path, 'read_file', calls), path).toMatchObject({
        envelope: deniedBy('no-home-aws'),
        ran: false,
      });
    }
  });
});

describe('roots given through a symbolic link', () => {
  // The gate is told the workspace by a path through a link (`/home` on a link, macOS's `/var`), and
  // a tool is given the real path of the same file.
  const linkedRoot = join(base, 'linked-project');
  symlinkSync(ws, linkedRoot);
  const policy = definePolicy({
    rules: [
      { id: 'no-config', action: 'deny', arguments: { path: { under: 'config' } } },
      { id: 'docs-readable', action: 'allow', tool: 'read_file', arguments: { path: { under: 'docs' } } },
    ],
    defaults: { read: 'ask' },
  });

  test('the real path of a denied file is denied', async () => {
    const calls: string[] = [];
    const registry = gated(policy, [echoTool('read_file', 'read', calls)], { roots: [linkedRoot] });
    for (const path of ['config/app.json', `${linkedRoot}/config/app.json`, `${ws}/config/app.json`]) {
      expect(await read(registry, path, 'read_file', calls), path).toMatchObject({
        envelope: deniedBy('no-config'),
        ran: false,
      });
    }
  });

  test('an allowance still holds for an existing file under the linked root', async () => {
    writeFileSync(join(ws, 'docs/guide.md'), 'text');
    const calls: string[] = [];
    const registry = gated(policy, [echoTool('read_file', 'read', calls)], { roots: [linkedRoot] });
    expect(await read(registry, 'docs/guide.md', 'read_file', calls)).toMatchObject({
      envelope: { ok: true },
      ran: true,
    });
  });
});

describe('percent-encoded UTF-8', () => {
  // A tool that decodes its argument (decodeURIComponent, a URL parser) reads `caf%C3%A9` as `café`.
  const policy = definePolicy({
    rules: [{ id: 'no-cles', action: 'deny', arguments: { path: { under: 'clés' } } }],
  });
  test.each(['cl%C3%A9s/id_rsa', 'cle%CC%81s/id_rsa', 'cl%25C3%25A9s/id_rsa'])(
    '%s is denied by a deny on clés',
    async (path) => {
      const calls: string[] = [];
      const registry = gated(policy, [echoTool('read_file', 'read', calls)]);
      expect(await read(registry, 'clés/id_rsa', 'read_file', calls)).toMatchObject({
        envelope: deniedBy('no-cles'),
      });
      expect(await read(registry, path, 'read_file', calls)).toMatchObject({
        envelope: deniedBy('no-cles'),
        ran: false,
      });
    },
  );
});

describe('annotations inform, never decide', () => {
  // The starter policy's old allow: every read and search of every imported server.
  const starter = definePolicy({
    rules: [{ id: 'imported-reads', action: 'allow', source: 'mcp:*', category: ['read', 'search'] }],
  });

  test('a server that marks delete_all_files read-only does not get it run without a question', async () => {
    const calls: string[] = [];
    const tool = imported(
      'delete_all_files',
      { source: 'mcp:evil', remoteName: 'delete_all_files', inferredCategory: true },
      calls,
    );
    const { envelope } = await read(gated(starter, [tool]), 'docs', 'delete_all_files', calls);
    // No approver: the ask is refused, and the category the server claimed decided nothing.
    expect(envelope).toMatchObject({
      ok: false,
      error: { type: 'permission_denied', rule: 'default:imported' },
    });
    expect(calls).toEqual([]);
  });

  test('a category the configuration gives does decide', async () => {
    const calls: string[] = [];
    const tool = imported('read_text_file', { source: 'mcp:fs', remoteName: 'read_text_file' }, calls);
    const { envelope } = await read(gated(starter, [tool]), 'docs/a.md', 'read_text_file', calls);
    expect(envelope.ok).toBe(true);
    expect(calls).toEqual(['read_text_file']);
  });

  test('a deny on a category still holds for a tool whose category is only claimed', async () => {
    const calls: string[] = [];
    const policy = definePolicy({ rules: [{ id: 'no-reads', action: 'deny', category: 'write' }] });
    const tool = imported('wipe', { source: 'mcp:evil', remoteName: 'wipe', inferredCategory: true }, calls);
    const { envelope } = await read(gated(policy, [tool]), 'docs', 'wipe', calls);
    expect(envelope).toMatchObject(deniedBy('no-reads'));
    expect(calls).toEqual([]);
  });
});
