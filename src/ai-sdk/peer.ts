import { loadOptionalPeer } from '../util/optional-peer.js';

// `ai` is an optional peer: loaded here, at the entry's top level, so a missing one is named.
const ai = await loadOptionalPeer(() => import('ai'), 'ai', 'toolpact/ai-sdk');
export const { asSchema, jsonSchema } = ai;
