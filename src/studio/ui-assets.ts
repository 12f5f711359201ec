import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { escapeHtml } from '../util/http-text.js';

/** A file the page loads: its bytes and its content type. */
export interface Asset {
  readonly body: Uint8Array;
  readonly type: string;
}

/** The page's own files and the UI libraries, read once from the installed package. */
export interface UiAssets {
  /** `ui/<name>` files (the page's scripts and styles), by name. */
  readonly ui: ReadonlyMap<string, Asset>;
  /** `vendor/<name>` files (Preact, its hooks and htm, from node_modules), by name. */
  readonly vendor: ReadonlyMap<string, Asset>;
}

const TYPES: { readonly [extension: string]: string } = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

// Served under these names; the import map in the page points the bare specifiers at them.
const VENDOR: readonly (readonly [served: string, specifier: string, file: string])[] = [
  ['preact.mjs', 'preact', 'preact.mjs'],
  ['hooks.mjs', 'preact/hooks', 'hooks.mjs'],
  ['htm.mjs', 'htm', 'htm.mjs'],
];

/**
 * The import map that lets the page's modules import `preact`, `preact/hooks` and `htm` by name.
 *
 * @example
 * `<script type="importmap">${JSON.stringify(IMPORT_MAP)}</script>`;
 */
export const IMPORT_MAP = {
  imports: { preact: './vendor/preact.mjs', 'preact/hooks': './vendor/hooks.mjs', htm: './vendor/htm.mjs' },
};

/**
 * Reads the UI from the folder beside this module (`ui/`, copied next to the compiled file by the
 * build) and the libraries from the installed `preact` and `htm` packages: no CDN, no bundler.
 *
 * @example
 * const assets = loadUiAssets();
 * assets.ui.get('app.js')?.type; // 'text/javascript; charset=utf-8'
 */
export function loadUiAssets(): UiAssets {
  const here = dirname(fileURLToPath(import.meta.url));
  const folder = join(here, 'ui');
  const ui = new Map<string, Asset>();
  for (const name of readdirSync(folder).sort()) {
    const type = TYPES[name.slice(name.lastIndexOf('.'))];
    if (type) ui.set(name, { body: readFileSync(join(folder, name)), type });
  }
  const require = createRequire(import.meta.url);
  const vendor = new Map<string, Asset>();
  for (const [served, specifier, file] of VENDOR) {
    // Resolving the entry (whichever file the package's exports give) and taking its sibling works
    // for both packages' layouts, on every Node version the package supports.
    const path = join(dirname(require.resolve(specifier)), file);
    vendor.set(served, { body: readFileSync(path), type: TYPES['.mjs']! });
  }
  return { ui, vendor };
}

/**
 * The paths of every script module the page imports, for {@link renderPage}'s preloads.
 *
 * @example
 * modulePaths(loadUiAssets()); // ['vendor/preact.mjs', 'vendor/hooks.mjs', 'vendor/htm.mjs', 'ui/api.js', …]
 */
export function modulePaths(assets: UiAssets): string[] {
  return [
    ...[...assets.vendor.keys()].map((name) => `vendor/${name}`),
    ...[...assets.ui.entries()]
      .filter(([, asset]) => asset.type.startsWith('text/javascript'))
      .map(([name]) => `ui/${name}`),
  ];
}

/**
 * The page itself: the import map and the entry script, both allowed by the page's CSP nonce, and a
 * preload of every module the entry imports.
 *
 * @example
 * renderPage('workspace', 'r4nd0m', ['ui/app.js']); // '<!doctype html>…'
 */
export function renderPage(label: string, nonce: string, preload: readonly string[] = []): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>toolpact studio · ${escapeHtml(label)}</title>`,
    '<link rel="icon" href="data:,">',
    '<link rel="stylesheet" href="./ui/style.css">',
    `<script type="importmap" nonce="${nonce}">${JSON.stringify(IMPORT_MAP)}</script>`,
    // Every module up front, so the browser fetches them in parallel rather than import by import.
    ...preload.map((path) => `<link rel="modulepreload" href="./${path}">`),
    // The set view is the slowest part (the server lints and prices the set): ask for it at once.
    '<link rel="preload" href="./api/overview" as="fetch" crossorigin="anonymous">',
    `<script type="module" nonce="${nonce}" src="./ui/app.js"></script>`,
    '</head>',
    '<body><div id="app"><p class="loading">Loading the contracts…</p></div></body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * The Content-Security-Policy of the page: only its own origin, inline scripts only with the nonce.
 *
 * @example
 * response.setHeader('Content-Security-Policy', contentSecurityPolicy(nonce));
 */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}' 'self'`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
