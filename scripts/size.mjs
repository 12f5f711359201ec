#!/usr/bin/env node
// What `npm i toolpact zod` installs: packs this checkout (`npm pack`, which builds), installs the tarball
// and zod into an empty temporary project from the registry, and prints how many packages and how many
// megabytes land in node_modules, the largest first. A script to run by hand (it needs the network),
// not a test.
//
//   npm run size            the table
//   npm run size -- --json  the same figures as JSON
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const json = process.argv.includes('--json');
const work = mkdtempSync(join(tmpdir(), 'toolpact-size-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

try {
  const log = json ? 'ignore' : 'inherit';
  const packed = JSON.parse(
    execFileSync(npm, ['pack', '--json', '--pack-destination', work], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', log],
    }),
  )[0];
  const project = join(work, 'project');
  execFileSync('mkdir', [project]);
  writeFileSync(join(project, 'package.json'), '{ "name": "size-probe", "private": true }\n');
  execFileSync(
    npm,
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', join(work, packed.filename), 'zod'],
    { cwd: project, stdio: ['ignore', log, log] },
  );
  const modules = join(project, 'node_modules');
  const lock = JSON.parse(readFileSync(join(modules, '.package-lock.json'), 'utf8'));
  const packages = Object.keys(lock.packages).filter((key) => key.startsWith('node_modules/'));
  const sizes = packages
    .map((key) => ({ name: key.slice(key.lastIndexOf('node_modules/') + 13), path: key, bytes: 0 }))
    .map((entry) => ({ ...entry, bytes: ownBytes(join(project, entry.path)) }))
    .sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
  const total = bytesOf(modules);
  const report = {
    tarball: { file: packed.filename, bytes: packed.size, unpackedBytes: packed.unpackedSize },
    packages: packages.length,
    bytes: total,
    perPackage: sizes.map(({ name, bytes }) => ({ name, bytes })),
  };
  if (json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
    const lines = [
      '',
      `toolpact tarball: ${mb(packed.size)} packed, ${mb(packed.unpackedSize)} unpacked, ${packed.entryCount} files`,
      `npm i toolpact zod: ${packages.length} packages, ${mb(total)} in node_modules`,
      '',
      ...sizes.map(({ name, bytes }) => `${mb(bytes).padStart(9)}  ${name}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** Bytes of the files under `path`, following no links. */
function bytesOf(path) {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  let sum = 0;
  for (const entry of readdirSync(path)) sum += bytesOf(join(path, entry));
  return sum;
}

/** Bytes of one package, without the packages nested in its own node_modules (they are counted apart). */
function ownBytes(path) {
  let sum = 0;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules') continue;
    sum += bytesOf(join(path, entry));
  }
  return sum;
}
