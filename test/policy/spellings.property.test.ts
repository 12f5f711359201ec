import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { type AnyTool, createTool, type Envelope, Registry } from '../../src/index.js';
import {
  createPolicyGate,
  definePolicy,
  type PolicyAction,
  type PolicyDecision,
} from '../../src/policy/index.js';
import { echoTool } from './support.js';

// "Every spelling of one target decides the same": a workspace and a home folder on disk, a policy
// mixing relative, absolute and `~` folders, `under` and `glob`, and for each generated target many
// spellings that name the same file. An independent model of the policy (`expected`) says what the
// plain spelling must get; the properties hold the other spellings to it.

const SEED = 20_261_204;
const base = mkdtempSync(join(tmpdir(), 'toolpact-spellings-'));
function folder(name: string): string {
  mkdirSync(join(base, name));
  return realpathSync(join(base, name));
}
const ws = folder('workspace');
const home = folder('home');
const elsewhere = folder('elsewhere');
for (const name of ['docs/guide', '.ssh', 'secrets/public', '.aws'])
  mkdirSync(join(ws, name), { recursive: true });
for (const name of ['.ssh', '.aws', 'notes', 'docs']) mkdirSync(join(home, name), { recursive: true });
for (const file of ['docs/a.md', '.ssh/id_rsa', 'secrets/key', 'secrets/public/id.pub', '.aws/credentials'])
  writeFileSync(join(ws, file), 'x');
for (const file of ['.ssh/id_rsa', '.aws/credentials', 'notes/todo.md']) writeFileSync(join(home, file), 'x');
symlinkSync(join(home, '.ssh'), join(ws, 'link-to-ssh'));

const policy = definePolicy({
  rules: [
    { id: 'no-ssh-anywhere', action: 'deny', arguments: { path: { glob: '**/.ssh/**' } } },
    // An absolute `under` folder is refused by definePolicy for now (gate-bypasses.test.ts holds
    // that case); the absolute spelling of this folder is a glob here.
    { id: 'no-workspace-ssh', action: 'deny', arguments: { path: { glob: `${ws}/.ssh/**` } } },
    { id: 'no-home-ssh', action: 'deny', arguments: { path: { under: '~/.ssh' } } },
    { id: 'no-home-aws', action: 'deny', arguments: { path: { under: '~/.aws' } } },
    { id: 'no-secrets', action: 'deny', arguments: { path: { under: 'secrets' } } },
    { id: 'no-pem', action: 'deny', arguments: { path: { glob: `${ws}/**/*.pem` } } },
    {
      id: 'public-keys',
      action: 'allow',
      tool: 'read_file',
      arguments: { path: { under: 'secrets/public' } },
    },
    { id: 'docs-readable', action: 'allow', tool: 'read_file', arguments: { path: { under: 'docs' } } },
    { id: 'markdown-asks', action: 'ask', arguments: { path: { glob: '**/*.md' } } },
    { id: 'fs-reads', action: 'allow', source: 'mcp:fs', category: ['read', 'search'] },
  ],
});
const DENY_RULES = new Set(policy.rules.filter((rule) => rule.action === 'deny').map((rule) => rule.id));

const calls: string[] = [];
const localTool = echoTool('read_file', 'read', calls);
const gate = createPolicyGate(policy, { roots: [ws], home });
const registry = new Registry({ ...gate.registryOptions }).register(localTool);

// An imported filesystem server: its own roots (the workspace), while the gate's roots are elsewhere,
// so a relative rule folder reaches the server's absolute paths only through `meta.roots`.
const importedTool: AnyTool = createTool(
  {
    name: 'read_file',
    description: 'Read a file (from the filesystem server).',
    category: 'read',
    parameters: { type: 'object', properties: { path: { type: 'string', description: 'A path.' } } },
  },
  { meta: { source: 'mcp:fs', remoteName: 'read_file', roots: [ws] }, execute: (args) => args },
);
const importedGate = createPolicyGate(policy, { roots: [elsewhere], home });

let cases = 0;
afterAll(() => {
  console.log(`spellings.property: ${cases} spellings decided`);
  rmSync(base, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Targets and their spellings

type Base = 'ws' | 'home';
interface Target {
  readonly base: Base;
  readonly segments: readonly string[];
}
interface Spelling {
  readonly kind: string;
  readonly text: string;
}

const NAMES = [
  'docs',
  '.ssh',
  'secrets',
  'public',
  '.aws',
  'a',
  'b.md',
  'id.pem',
  'guide',
  'my notes',
  'café',
  'cafe\u0301',
  'Ωmega',
  'niño.md',
  'link-to-ssh',
  'secrets-old',
  '.ssh2',
];
const WHITE = [' ', '\t', '\n', '\uFEFF', '\u00A0', '\u200B'];
const SLASH_LOOK_ALIKES = ['\uFF0F', '\u2215', '\u2044', '\\'];
const DETOURS = ['zz', 'docs', 'my notes'];

const segment = fc.constantFrom(...NAMES);
const target: fc.Arbitrary<Target> = fc.record({
  base: fc.constantFrom<Base>('ws', 'ws', 'home'),
  segments: fc.array(segment, { minLength: 1, maxLength: 4 }),
});
// Targets that start in a denied folder, so property (a) is not starved.
const deniedTarget: fc.Arbitrary<Target> = fc
  .tuple(
    fc.constantFrom<[Base, string]>(
      ['ws', '.ssh'],
      ['ws', 'secrets'],
      ['ws', 'link-to-ssh'],
      ['home', '.ssh'],
      ['home', '.aws'],
    ),
    fc.array(segment, { maxLength: 3 }),
  )
  .map(([[where, first], rest]) => ({ base: where, segments: [first, ...rest] }));
// Index choices for the spellings (which separator, which letter, which white space).
const picks = fc.array(fc.nat(), { minLength: 8, maxLength: 8 });

function chooser(numbers: readonly number[]): (count: number) => number {
  let next = 0;
  return (count) => (numbers[next++ % numbers.length] ?? 0) % Math.max(count, 1);
}

function relative(t: Target): string {
  return t.segments.join('/');
}

/** The plain spelling: relative to the workspace, or `~/…` for a target in the home folder. */
function plain(t: Target): string {
  return t.base === 'ws' ? relative(t) : `~/${relative(t)}`;
}

function prefix(t: Target): string {
  return t.base === 'ws' ? '' : '~/';
}

function absolute(t: Target): string {
  return `${t.base === 'ws' ? ws : home}/${relative(t)}`;
}

// Replaces the `index`-th `/` of `text`.
function replaceSeparator(text: string, index: number, replacement: string): string {
  let seen = -1;
  for (let at = 0; at < text.length; at++) {
    if (text[at] === '/' && ++seen === index) return text.slice(0, at) + replacement + text.slice(at + 1);
  }
  return text;
}

/** Spellings that name the same file on any file system: they must decide as the plain one does. */
function unambiguousSpellings(t: Target, pick: (count: number) => number): Spelling[] {
  const p = relative(t);
  const separators = t.segments.length - 1;
  const detourAt = pick(t.segments.length + 1);
  const detour = [
    ...t.segments.slice(0, detourAt),
    DETOURS[pick(DETOURS.length)]!,
    '..',
    ...t.segments.slice(detourAt),
  ].join('/');
  const spellings: Spelling[] = [
    { kind: 'trailing slash', text: `${plain(t)}/` },
    {
      kind: 'double slash',
      text:
        separators > 0
          ? prefix(t) + replaceSeparator(p, pick(separators), '//')
          : `${t.base === 'ws' ? '.' : '~'}//${p}`,
    },
    { kind: 'detour', text: prefix(t) + detour },
    { kind: 'absolute', text: absolute(t) },
    { kind: 'absolute detour', text: `${t.base === 'ws' ? ws : home}/zz/../${p}` },
    { kind: 'absolute double slash', text: `${t.base === 'ws' ? ws : home}//${p}/` },
  ];
  if (t.base === 'ws') {
    spellings.push({ kind: 'dot', text: `./${p}` }, { kind: 'dot dot', text: `././${p}` });
    if (t.segments[0] === 'link-to-ssh') {
      // The link names the home's `.ssh`: `~/.ssh/…` is the same file.
      spellings.push({ kind: 'through the link, as ~', text: ['~/.ssh', ...t.segments.slice(1)].join('/') });
    }
  } else {
    spellings.push({ kind: '~ dot', text: `~/./${p}` }, { kind: '~ detour', text: `~/zz/../${p}` });
    if (t.segments[0] === '.ssh') {
      const rest = t.segments.slice(1);
      spellings.push(
        { kind: 'through the link', text: ['link-to-ssh', ...rest].join('/') },
        { kind: 'through the link, absolute', text: [`${ws}/link-to-ssh`, ...rest].join('/') },
      );
    }
  }
  return spellings;
}

/**
 * Spellings a tool might read as the target, or might not: percent-encoding, letter case, Unicode
 * normalization, slash look-alikes, white space. A deny must still hold; none may decide looser.
 */
function ambiguousSpellings(t: Target, pick: (count: number) => number): Spelling[] {
  const p = relative(t);
  const head = prefix(t);
  const separators = t.segments.length - 1;
  const spellings: Spelling[] = [];
  if (separators > 0) {
    const at = pick(separators);
    spellings.push(
      { kind: 'percent slash', text: head + replaceSeparator(p, at, '%2F') },
      { kind: 'double percent slash', text: head + replaceSeparator(p, at, '%252F') },
      { kind: 'lower-case percent slash', text: head + replaceSeparator(p, at, '%2f') },
      {
        kind: 'slash look-alike',
        text: head + replaceSeparator(p, at, SLASH_LOOK_ALIKES[pick(SLASH_LOOK_ALIKES.length)]!),
      },
      { kind: 'full-width solidus', text: head + replaceSeparator(p, at, '\uFF0F') },
    );
  }
  if (t.base === 'home') {
    spellings.push(
      { kind: 'percent slash after ~', text: `~%2F${p}` },
      { kind: 'full-width solidus after ~', text: `~\uFF0F${p}` },
    );
  }
  const letters = [...p.matchAll(/[A-Za-z]/g)].map((match) => match.index);
  if (letters.length > 0) {
    const at = letters[pick(letters.length)]!;
    const hex = p.charCodeAt(at).toString(16).toUpperCase().padStart(2, '0');
    spellings.push(
      { kind: 'percent letter', text: `${head}${p.slice(0, at)}%${hex}${p.slice(at + 1)}` },
      { kind: 'double percent letter', text: `${head}${p.slice(0, at)}%25${hex}${p.slice(at + 1)}` },
    );
  }
  spellings.push({ kind: 'upper case', text: head + p.toUpperCase() });
  const upperAt = pick(t.segments.length);
  spellings.push({
    kind: 'one segment upper case',
    text: head + t.segments.map((name, index) => (index === upperAt ? name.toUpperCase() : name)).join('/'),
  });
  if (p.normalize('NFD') !== p) spellings.push({ kind: 'NFD', text: head + p.normalize('NFD') });
  if (p.normalize('NFC') !== p) spellings.push({ kind: 'NFC', text: head + p.normalize('NFC') });
  const lead = WHITE[pick(WHITE.length)]!;
  const trail = WHITE[pick(WHITE.length)]!;
  spellings.push(
    { kind: `leading ${JSON.stringify(lead)}`, text: lead + plain(t) },
    { kind: `trailing ${JSON.stringify(trail)}`, text: plain(t) + trail },
    { kind: 'white space both ends', text: lead + plain(t) + trail },
    { kind: 'leading white space, absolute', text: lead + absolute(t) },
  );
  return spellings;
}

// ---------------------------------------------------------------------------------------------
// The model: what the plain spelling must get, worked out from the folders, not from the gate

const wsSegments = ws.split('/').filter(Boolean);
const homeSegments = home.split('/').filter(Boolean);

/** The absolute paths the target is: itself, and through the link when it goes through it. */
function targetPaths(t: Target, throughLinks: boolean): string[][] {
  const own = [...(t.base === 'ws' ? wsSegments : homeSegments), ...t.segments];
  if (throughLinks && t.base === 'ws' && t.segments[0] === 'link-to-ssh') {
    return [own, [...homeSegments, '.ssh', ...t.segments.slice(1)]];
  }
  return [own];
}

function under(path: readonly string[], folder: readonly string[], fold: boolean): boolean {
  const read = (name: string) => (fold ? name.toLowerCase() : name);
  return folder.length <= path.length && folder.every((name, index) => read(path[index]!) === read(name));
}

function deniesOf(paths: readonly (readonly string[])[]): Set<string> {
  const denies = new Set<string>();
  for (const path of paths) {
    if (path.some((name) => name.toLowerCase() === '.ssh')) denies.add('no-ssh-anywhere');
    if (under(path, [...wsSegments, '.ssh'], true)) denies.add('no-workspace-ssh');
    if (under(path, [...homeSegments, '.ssh'], true)) denies.add('no-home-ssh');
    if (under(path, [...homeSegments, '.aws'], true)) denies.add('no-home-aws');
    if (under(path, [...wsSegments, 'secrets'], true)) denies.add('no-secrets');
    if (under(path, wsSegments, true) && path.length > wsSegments.length && /\.pem$/i.test(path.at(-1)!))
      denies.add('no-pem');
  }
  return denies;
}

interface Expected {
  readonly action: PolicyAction;
  /** For a deny, any of the deny rules that matched; else the one rule. */
  readonly rules: ReadonlySet<string>;
}

function expected(t: Target, imported: boolean): Expected {
  const paths = targetPaths(t, true);
  const denies = deniesOf(paths);
  const everyUnder = (folder: string[]) => paths.every((path) => under(path, folder, false));
  const publicKeys = !imported && everyUnder([...wsSegments, 'secrets', 'public']);
  if (denies.size > 0) {
    if (publicKeys && [...denies].every((rule) => rule === 'no-secrets')) {
      return { action: 'allow', rules: new Set(['public-keys']) };
    }
    return { action: 'deny', rules: denies };
  }
  if (imported) return { action: 'allow', rules: new Set(['fs-reads']) };
  if (publicKeys) return { action: 'allow', rules: new Set(['public-keys']) };
  if (everyUnder([...wsSegments, 'docs'])) return { action: 'allow', rules: new Set(['docs-readable']) };
  if (paths.some((path) => /\.md$/i.test(path.at(-1)!))) {
    return { action: 'ask', rules: new Set(['markdown-asks']) };
  }
  return { action: 'allow', rules: new Set(['default:read']) };
}

/**
 * Letter case names the same file only on a folding file system, where the link's own name folds
 * too; on this one (ext4) `LINK-TO-SSH` is another, missing file, which the gate cannot follow. So a
 * case-changed spelling is held to the target's decision only when the names alone are denied.
 */
function sameFileOnAFoldingFileSystem(t: Target, spelling: Spelling): boolean {
  return !/upper case/.test(spelling.kind) || deniesOf(targetPaths(t, false)).size > 0;
}

/**
 * Whether the spelling, read as written by a tool that decodes nothing (`~%2Fid.pem` is a file of
 * that name in the workspace), is itself inside a deny: then a deny is right, not a false one.
 */
function landsInsideAsWritten(text: string): boolean {
  const path: string[] = text.startsWith('/') ? [] : [...wsSegments];
  for (const name of text.split('/')) {
    if (name === '' || name === '.') continue;
    if (name === '..') path.pop();
    else path.push(name);
  }
  return deniesOf([path]).size > 0;
}

// ---------------------------------------------------------------------------------------------
// Deciding

const SEVERITY: Record<PolicyAction, number> = { allow: 0, ask: 1, deny: 2 };

function decide(path: string, imported = false): PolicyDecision {
  cases++;
  const tool = imported ? importedTool : localTool;
  const decision = (imported ? importedGate : gate).decide({
    tool: tool.contract,
    meta: tool.meta,
    arguments: { path },
    callId: undefined,
    state: undefined,
  });
  if (decision instanceof Promise) throw new Error('a read decision without an approver is synchronous');
  return decision;
}

function describeCase(t: Target, spelling: Spelling, decision: PolicyDecision): string {
  return `${spelling.kind} ${JSON.stringify(spelling.text)} of ${t.base}:${JSON.stringify(plain(t))} decided ${decision.action} (${decision.rule})`;
}

function expectDecision(t: Target, spelling: Spelling, decision: PolicyDecision, want: Expected): void {
  const label = describeCase(t, spelling, decision);
  expect(decision.action, label).toBe(want.action);
  expect(want.rules.has(decision.rule ?? ''), `${label}; expected one of ${[...want.rules].join(', ')}`).toBe(
    true,
  );
}

describe('every spelling of one target decides the same (fast-check, seeded)', () => {
  test('(a) deny holds: every spelling of a denied target is denied, through registry.dispatch', async () => {
    await fc.assert(
      fc.asyncProperty(deniedTarget, picks, async (t, numbers) => {
        const want = expected(t, false);
        if (want.action !== 'deny') return; // `secrets/public/…` is the carve-out
        const pick = chooser(numbers);
        const spellings = [
          { kind: 'plain', text: plain(t) },
          ...unambiguousSpellings(t, pick),
          ...ambiguousSpellings(t, pick).filter((spelling) => sameFileOnAFoldingFileSystem(t, spelling)),
        ];
        for (const spelling of spellings) {
          cases++;
          const before = calls.length;
          const envelope = JSON.parse(
            await registry.dispatch('read_file', { path: spelling.text }),
          ) as Envelope;
          const label = `${spelling.kind} ${JSON.stringify(spelling.text)} of ${t.base}:${JSON.stringify(plain(t))}`;
          expect(envelope.ok, label).toBe(false);
          if (envelope.ok) return;
          expect(envelope.error.type, label).toBe('permission_denied');
          const rule = (envelope.error as { rule?: string }).rule;
          expect(DENY_RULES.has(rule ?? ''), `${label} was refused by ${rule}`).toBe(true);
          expect(calls.length, label).toBe(before);
        }
      }),
      { seed: SEED, numRuns: 50 },
    );
  });

  test('(b) every unambiguous spelling decides as the plain one, which decides as the model says', () => {
    fc.assert(
      fc.property(fc.oneof(target, deniedTarget), picks, (t, numbers) => {
        const want = expected(t, false);
        const first = decide(plain(t));
        expectDecision(t, { kind: 'plain', text: plain(t) }, first, want);
        for (const spelling of unambiguousSpellings(t, chooser(numbers))) {
          expectDecision(t, spelling, decide(spelling.text), want);
        }
      }),
      { seed: SEED + 1, numRuns: 200 },
    );
  });

  test('(c) an ambiguous spelling never decides looser than the plain one (allow < ask < deny)', () => {
    fc.assert(
      fc.property(fc.oneof(target, deniedTarget), picks, (t, numbers) => {
        const first = decide(plain(t));
        for (const spelling of ambiguousSpellings(t, chooser(numbers))) {
          if (!sameFileOnAFoldingFileSystem(t, spelling)) continue;
          const decision = decide(spelling.text);
          expect(SEVERITY[decision.action], describeCase(t, spelling, decision)).toBeGreaterThanOrEqual(
            SEVERITY[first.action],
          );
        }
      }),
      { seed: SEED + 2, numRuns: 120 },
    );
  });

  test('(d) no false denies: no spelling of a target outside every deny is denied by a deny rule', () => {
    fc.assert(
      fc.property(
        target.filter((t) => deniesOf(targetPaths(t, true)).size === 0),
        picks,
        (t, numbers) => {
          const pick = chooser(numbers);
          for (const spelling of [
            { kind: 'plain', text: plain(t) },
            ...unambiguousSpellings(t, pick),
            ...ambiguousSpellings(t, pick),
          ]) {
            if (landsInsideAsWritten(spelling.text)) continue;
            const decision = decide(spelling.text);
            expect(DENY_RULES.has(decision.rule ?? ''), describeCase(t, spelling, decision)).toBe(false);
            expect(decision.action, describeCase(t, spelling, decision)).not.toBe('deny');
          }
        },
      ),
      { seed: SEED + 3, numRuns: 100 },
    );
  });

  test('an imported filesystem tool (meta.roots): its absolute and relative spellings meet the same denies', () => {
    fc.assert(
      fc.property(fc.oneof(target, deniedTarget), picks, (t, numbers) => {
        const want = expected(t, true);
        const pick = chooser(numbers);
        expectDecision(t, { kind: 'plain', text: plain(t) }, decide(plain(t), true), want);
        for (const spelling of unambiguousSpellings(t, pick)) {
          expectDecision(t, spelling, decide(spelling.text, true), want);
        }
        for (const spelling of ambiguousSpellings(t, pick)) {
          const decision = decide(spelling.text, true);
          const label = describeCase(t, spelling, decision);
          if (want.action === 'deny' && sameFileOnAFoldingFileSystem(t, spelling)) {
            expect(decision.action, label).toBe('deny');
          } else if (deniesOf(targetPaths(t, true)).size === 0 && !landsInsideAsWritten(spelling.text)) {
            expect(DENY_RULES.has(decision.rule ?? ''), label).toBe(false);
          }
        }
      }),
      { seed: SEED + 4, numRuns: 100 },
    );
  });

  test('(e) a `..` after a symbolic link is read where the file system goes: `link-to-ssh/../x` is `~/x`', () => {
    // The kernel resolves `link-to-ssh/..` to the link's target's parent, the home folder, not the workspace.
    fc.assert(
      fc.property(
        target.filter((t) => t.base === 'home'),
        (t) => {
          const spelling = { kind: 'dot-dot after the link', text: `link-to-ssh/../${relative(t)}` };
          const want = expected(t, false);
          const decision = decide(spelling.text);
          const label = describeCase(t, spelling, decision);
          if (want.action === 'deny') expect(decision.action, label).toBe('deny');
          else expect(SEVERITY[decision.action], label).toBeGreaterThanOrEqual(SEVERITY[want.action]);
        },
      ),
      { seed: SEED + 5, numRuns: 60 },
    );
  });
});
