// Imports one entry in this fresh process and writes to the log every module it loaded: what ESM
// resolved (through the hook) and what CommonJS required (its cache).
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const [entry, log] = process.argv.slice(2);
register('./record-resolve.mjs', { parentURL: import.meta.url, data: { log } });
await import(pathToFileURL(entry).href);
const required = Object.keys(createRequire(import.meta.url).cache).map((file) => pathToFileURL(file).href);
appendFileSync(log, required.map((url) => `${url}\n`).join(''));
