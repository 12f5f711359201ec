import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `../shared/corpora/` beside the project root, found from this file's location. */
export const CORPORA_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'shared',
  'corpora',
);
