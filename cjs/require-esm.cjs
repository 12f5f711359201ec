'use strict';
// toolpact is published as ES modules only. `require('toolpact')` (or a subpath) lands here: where
// Node can require an ES module (20.19 and later, 22.12 and later) this hands over the real module;
// where it cannot, or the entry waits on an optional peer at load (top-level await), the error says
// how to load it instead of Node's bare ERR_REQUIRE_ESM.
const UNREQUIRABLE = new Set(['ERR_REQUIRE_ESM', 'ERR_REQUIRE_ASYNC_MODULE']);

module.exports = function requireEsm(subpath) {
  const specifier = subpath === '.' ? 'toolpact' : `toolpact/${subpath}`;
  const file = subpath === '.' ? '../dist/index.js' : `../dist/${subpath}/index.js`;
  try {
    return require(file);
  } catch (error) {
    if (!(error && UNREQUIRABLE.has(error.code))) throw error;
    const message =
      `${specifier} is an ES module package and cannot be loaded with require() here ` +
      `(Node ${process.versions.node}, ${error.code}). ` +
      `Use \`import { … } from '${specifier}'\` in an ES module (a .mjs file, or "type": "module" in package.json), ` +
      `or \`await import('${specifier}')\` from CommonJS.`;
    throw Object.assign(new Error(message, { cause: error }), { code: 'ERR_TOOLPACT_ESM_ONLY' });
  }
};
