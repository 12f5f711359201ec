import type TypeScript from 'typescript';
import { loadOptionalPeer } from '../util/optional-peer.js';

// `typescript` is an optional peer: loaded here, at the entry's top level, so a missing one is named.
// The modules of this entry take the compiler's values from here and its types from `typescript`.
const loaded = await loadOptionalPeer(() => import('typescript'), 'typescript', 'toolpact/extract');
const ts: typeof TypeScript = loaded.default;
export default ts;
