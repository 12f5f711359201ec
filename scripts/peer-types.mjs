#!/usr/bin/env node
// Lets the published declarations compile where an optional peer dependency is not installed. A
// declaration file that imports a peer's types (`ai`, `@opentelemetry/api`, `pg`, `typescript`, …) fails
// a consumer's type-check with `skipLibCheck: false` when that peer is absent, even if the consumer never
// imports the entry that needs it. This step, run by `npm run build` after tsc, puts a `@ts-ignore` line
// above each such reference: with the peer installed its types are the peer's own, exactly as written;
// without it they are `any`, in an entry that cannot load without the peer anyway.
//
//   node scripts/peer-types.mjs dist    rewrites dist/**/*.d.ts in place, and says on stderr how many
//                                       references (stdout stays clean for `npm pack --json`)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const target = process.argv[2];
if (target === undefined) {
  process.stderr.write('Usage: node scripts/peer-types.mjs <folder of built declarations>\n');
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const peers = Object.entries(manifest.peerDependenciesMeta ?? {})
  .filter(([, meta]) => meta.optional)
  .map(([name]) => name);
const escaped = peers.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|');
// `from 'peer'`, `from 'peer/sub'`, `import('peer')`: a module specifier naming an optional peer.
const reference = new RegExp(`(?:\\bfrom\\s*|\\bimport\\s*\\(\\s*)(['"])(${escaped})(?:/[^'"]*)?\\1`);
const MARK = '// @ts-ignore optional peer';

let files = 0;
let references = 0;
for (const file of declarations(resolve(target))) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out = [];
  let changed = false;
  for (const [index, line] of lines.entries()) {
    const match = reference.exec(line);
    const marked = index > 0 && lines[index - 1].trimStart().startsWith(MARK);
    if (match && !marked && !/^\s*(\*|\/\/|\/\*)/.test(line)) {
      const indent = /^\s*/.exec(line)[0];
      out.push(`${indent}${MARK} "${match[2]}": its types are \`any\` where it is not installed.`);
      references += 1;
      changed = true;
    }
    out.push(line);
  }
  if (changed) {
    writeFileSync(file, out.join('\n'));
    files += 1;
  }
}
process.stderr.write(
  `peer-types: ${references} optional-peer type references in ${files} declaration files\n`,
);

/** Every `.d.ts` file under `folder`. */
function* declarations(folder) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* declarations(path);
    else if (entry.name.endsWith('.d.ts')) yield path;
  }
}
