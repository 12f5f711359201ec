import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderDiagnostic } from '../../src/schema/diagnostics.js';
import { DIAGNOSTIC_CODES, PROVIDER_FORMATS } from '../../src/schema/index.js';
import { GOLDEN_DIR } from './support/golden.js';
import { VARIANTS } from './support/variants.js';

const docs = readFileSync(
  join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'adapters.md'),
  'utf8',
);

describe('the lists in the source are the lists in the docs and the tests', () => {
  it.each(Object.keys(DIAGNOSTIC_CODES))(
    'diagnostic code %s is documented and has a message for every format',
    (code) => {
      expect(docs).toContain(`| \`${code}\` | ${DIAGNOSTIC_CODES[code as keyof typeof DIAGNOSTIC_CODES]} |`);
      for (const format of PROVIDER_FORMATS) {
        expect(renderDiagnostic(code as keyof typeof DIAGNOSTIC_CODES, 'The thing', format)).toMatch(
          /^The thing|The return contract/,
        );
      }
    },
  );

  it.each(PROVIDER_FORMATS)(
    'format %s is documented, run by the conformance suite and has golden files',
    (format) => {
      expect(docs).toContain(`| \`${format}\` |`);
      const variants = VARIANTS.filter((variant) => variant.format === format);
      expect(variants.length).toBeGreaterThan(0);
      for (const variant of variants) expect(existsSync(join(GOLDEN_DIR, variant.id))).toBe(true);
    },
  );
});
