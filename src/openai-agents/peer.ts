import { loadOptionalPeer } from '../util/optional-peer.js';

// `@openai/agents` is an optional peer: loaded here, at the entry's top level, so a missing one is named.
const agents = await loadOptionalPeer(
  () => import('@openai/agents'),
  '@openai/agents',
  'toolpact/openai-agents',
);
export const { RunContext, tool } = agents;
