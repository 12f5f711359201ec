import { loadOptionalPeer } from '../util/optional-peer.js';

// `@langchain/core` is an optional peer: loaded here, at the entry's top level, so a missing one is named.
const PEER = '@langchain/core';
const ENTRY = 'toolpact/langchain';
const [messages, tools, jsonSchema] = await Promise.all([
  loadOptionalPeer(() => import('@langchain/core/messages'), PEER, ENTRY),
  loadOptionalPeer(() => import('@langchain/core/tools'), PEER, ENTRY),
  loadOptionalPeer(() => import('@langchain/core/utils/json_schema'), PEER, ENTRY),
]);
export const { isDirectToolOutput, ToolMessage } = messages;
export const { isStructuredTool, StructuredTool, ToolInputParsingException } = tools;
export const { toJsonSchema } = jsonSchema;
