import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as z from 'zod';
import { toEntry } from '../../src/audit/audit-log.js';
import { defineTool, Registry } from '../../src/index.js';
import { AUDIT_EVENT_NAME, createOtelAuditSink, instrument } from '../../src/otel/index.js';
import { createPolicyGate, definePolicy } from '../../src/policy/index.js';
import { telemetry, useAsyncContext } from './support.js';

const TOKEN = `xoxb-${'98765432101'}-qwertyuiopasdf`;

let restore: () => void;
beforeAll(() => {
  restore = useAsyncContext();
});
afterAll(() => restore());

const post = defineTool({
  name: 'post_message',
  category: 'write',
  description: 'Post a message to a channel (an audit sink test tool).',
  input: z.object({
    channel: z.string().describe('The channel.'),
    token: z.string().describe('The bot token.'),
  }),
  execute: ({ channel }) => `posted to ${channel}`,
});

function logs() {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter })] });
  return { exporter, logger: provider.getLogger('toolpact'), provider };
}

test('each call is one toolpact.audit log record: the redacted entry as body, linked to its execute_tool span', async () => {
  const { exporter, logger, provider } = logs();
  const sdk = telemetry();
  const audit = createOtelAuditSink({ logger });
  const gate = createPolicyGate(
    definePolicy({
      rules: [
        {
          id: 'general-only',
          action: 'allow',
          tool: 'post_message',
          arguments: { channel: { equals: 'general' } },
        },
        { id: 'no-other-channels', action: 'deny', tool: 'post_message' },
      ],
    }),
    { observe: audit.observe },
  );
  const registry = new Registry({ ...gate.registryOptions }).register(post);
  instrument(registry, { tracer: sdk.tracer, meter: sdk.meter });
  await registry.call('post_message', { channel: 'general', token: TOKEN }, { callId: 'call_a' });
  await registry.call('post_message', { channel: 'random', token: TOKEN }, { callId: 'call_b' });

  const records = exporter.getFinishedLogRecords();
  expect(records).toHaveLength(2);
  const [allowed, denied] = records;
  expect(allowed?.eventName).toBe(AUDIT_EVENT_NAME);
  expect([allowed?.severityText, denied?.severityText]).toEqual(['INFO', 'WARN']);
  expect(allowed?.attributes).toEqual({
    'gen_ai.tool.name': 'post_message',
    'toolpact.outcome': 'ok',
    'toolpact.gate.decision': 'allow',
    'toolpact.gate.rule': 'general-only',
    'gen_ai.tool.call.id': 'call_a',
  });
  expect(denied?.attributes).toMatchObject({
    'error.type': 'permission_denied',
    'toolpact.gate.rule': 'no-other-channels',
  });
  expect(allowed?.body).toMatchObject({
    tool: 'post_message',
    arguments: { channel: 'general', token: '[REDACTED]' },
  });
  expect(JSON.stringify(records.map((record) => [record.body, record.attributes]))).not.toContain(TOKEN);
  // Emitted while the call's span is current: the record carries that span's ids.
  const spans = sdk.spans();
  expect(records.map((record) => record.spanContext?.spanId)).toEqual(
    spans.map((span) => span.spanContext().spanId),
  );
  expect(audit.written()).toBe(2);
  await provider.shutdown();
  await sdk.shutdown();
});

test('digest mode keeps the arguments out of the body, and a closed sink counts what it could not send', () => {
  const { exporter, logger } = logs();
  const audit = createOtelAuditSink({ logger, arguments: 'digest' });
  const record = {
    tool: 'post_message',
    category: 'write' as const,
    callId: undefined,
    arguments: { channel: 'general', token: TOKEN },
    decision: undefined,
    outcome: 'invalid_arguments',
    startedAt: Date.now(),
    durationMs: 0.2,
    state: undefined,
  };
  audit.observe(record);
  const [sent] = exporter.getFinishedLogRecords();
  expect(sent?.body).toEqual(JSON.parse(JSON.stringify(toEntry(record, { arguments: 'digest' }))));
  expect(sent?.body).not.toHaveProperty('arguments');
  audit.close();
  audit.observe(record);
  expect([audit.written(), audit.failed()]).toEqual([1, 1]);
});
