import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This copy of toolpact on the disk: its package folder and the absolute path of its `toolpact` bin. */
export interface InstalledCopy {
  readonly packageDir: string;
  readonly bin: string;
}

/**
 * Finds the toolpact package this code runs from (the nearest folder above it whose package.json is
 * named `toolpact`) and its `bin/toolpact.js`, real paths, so that a host can start this same copy from
 * any working folder. `undefined` when none is found (toolpact bundled into something else).
 *
 * @example
 * installedCopy(); // { packageDir: '/usr/lib/node_modules/toolpact', bin: '/usr/lib/node_modules/toolpact/bin/toolpact.js' }
 */
export function installedCopy(from: string = fileURLToPath(import.meta.url)): InstalledCopy | undefined {
  let folder = dirname(from);
  for (;;) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest)) {
      const found = binOf(manifest);
      if (found !== undefined) return found;
    }
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

function binOf(manifest: string): InstalledCopy | undefined {
  let value: { name?: unknown; bin?: unknown };
  try {
    value = JSON.parse(readFileSync(manifest, 'utf8')) as typeof value;
  } catch {
    return undefined;
  }
  if (value.name !== 'toolpact') return undefined;
  const packageDir = dirname(manifest);
  const relative =
    typeof value.bin === 'string'
      ? value.bin
      : value.bin && typeof value.bin === 'object'
        ? (value.bin as { toolpact?: unknown }).toolpact
        : undefined;
  if (typeof relative !== 'string') return undefined;
  const bin = resolve(packageDir, relative);
  if (!existsSync(bin)) return undefined;
  return { packageDir: realpathSync(packageDir), bin: realpathSync(bin) };
}
