#!/usr/bin/env node
// The published package runs its build (dist/). In a checkout, where src/ sits beside bin/ and dist/
// is built only for packing, the CLI runs from the TypeScript source through tsx, so `npx toolpact`
// works right after `npm ci` and never runs a stale build.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/bin.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../dist/cli/bin.js');
}
