/**
 * `npm run example:agent`: the whole loop without a key. A local OpenAI-compatible server on 127.0.0.1
 * plays a scripted model; the real `openai` client talks to it; `runAgent` sends the workspace tools,
 * runs the model's calls through the registry (two at once here) and hands the results back, until the
 * model answers.
 */
import OpenAI from 'openai';
import { openaiChat, runAgent } from '../../src/agent/index.js';
import registry from '../workspace/index.js';
import { startFakeModelServer, workspaceConversation } from './fake-model-server.js';

const server = await startFakeModelServer(workspaceConversation);
try {
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'not-needed' });
  const result = await runAgent({
    model: openaiChat(client, { model: 'scripted' }),
    registry,
    messages: [{ role: 'user', content: 'What is in the workspace, and what does the guide say?' }],
    onToolCall: ({ step, tool, call }) =>
      process.stdout.write(`step ${step + 1}  → ${tool} ${String(call.arguments)}\n`),
    onToolResult: (outcome) =>
      process.stdout.write(
        `        ← ${outcome.text.length > 100 ? `${outcome.text.slice(0, 100)}…` : outcome.text}\n`,
      ),
  });
  process.stdout.write(
    `\n${result.text}\n\n(${result.stopReason}: ${result.steps.length} steps, ${result.usage.inputTokens} tokens in, ${result.usage.outputTokens} out; ${result.messages.length} messages in the transcript)\n`,
  );
} finally {
  await server.close();
}
