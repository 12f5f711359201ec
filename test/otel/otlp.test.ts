import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, test } from 'vitest';
import { queryAuditLog } from '../../src/policy/index.js';
import { toolpactArgs } from '../support/cli-build.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MODULE = join('test', 'fixtures', 'mcp', 'registry-module.ts');

/** OTLP/JSON as it comes over the wire: attributes are key/value lists of typed values. */
interface KeyValue {
  readonly key: string;
  readonly value: {
    readonly stringValue?: string;
    readonly intValue?: string | number;
    readonly kvlistValue?: { values: KeyValue[] };
  };
}
const attribute = (list: readonly KeyValue[] | undefined, key: string) => {
  const value = list?.find((each) => each.key === key)?.value;
  return value?.stringValue ?? value?.intValue;
};

/** A local OTLP/HTTP receiver on 127.0.0.1 that keeps every request body by path. */
async function receiver() {
  const received = new Map<string, unknown[]>();
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      received.set(path, [
        ...(received.get(path) ?? []),
        { contentType: request.headers['content-type'], body },
      ]);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the export');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('toolpact serve --otel', () => {
  test('exports spans, metrics and audit log records over OTLP/HTTP to the endpoint the environment names', async () => {
    const otlp = await receiver();
    const dir = mkdtempSync(join(tmpdir(), 'toolpact-otlp-'));
    try {
      const policy = join(dir, 'policy.json');
      writeFileSync(policy, JSON.stringify({ rules: [{ id: 'no-add', action: 'deny', tool: 'add' }] }));
      const audit = join(dir, 'audit.db');
      const client = new Client({ name: 'otlp-test', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: toolpactArgs('serve', MODULE, '--otel', '--policy', policy, '--audit', audit),
          cwd: ROOT,
          stderr: 'pipe',
          env: {
            ...(process.env as Record<string, string>),
            OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
            OTEL_SERVICE_NAME: 'otlp-round-trip',
            FIXTURE_NOTES_DIR: dir,
          },
        }),
      );
      await client.callTool({ name: 'echo', arguments: { text: 'one' } });
      await client.callTool({ name: 'echo', arguments: { text: 'two' } });
      await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
      // Closing stdin stops the server, which flushes every exporter before it exits.
      await client.close();
      await until(
        () => ['/v1/traces', '/v1/metrics', '/v1/logs'].every((path) => otlp.received.has(path)),
        20_000,
      );

      const bodies = (path: string) =>
        (otlp.received.get(path) ?? []).map((each) => (each as { body: never }).body);
      expect(otlp.received.get('/v1/traces')?.[0]).toMatchObject({ contentType: 'application/json' });

      // Traces: one execute_tool span per call, from the service the environment named.
      const resourceSpans = bodies('/v1/traces').flatMap(
        (body: { resourceSpans: never[] }) => body.resourceSpans,
      );
      expect(
        resourceSpans.map((each: { resource: { attributes: KeyValue[] } }) =>
          attribute(each.resource.attributes, 'service.name'),
        ),
      ).toContain('otlp-round-trip');
      const spans = resourceSpans.flatMap((each: { scopeSpans: { spans: never[] }[] }) =>
        each.scopeSpans.flatMap((scope) => scope.spans),
      ) as {
        name: string;
        traceId: string;
        spanId: string;
        kind: number;
        attributes: KeyValue[];
        status: { code?: number };
      }[];
      expect(spans.map((span) => span.name).sort()).toEqual([
        'execute_tool add',
        'execute_tool echo',
        'execute_tool echo',
      ]);
      const denied = spans.find((span) => span.name === 'execute_tool add')!;
      expect(attribute(denied.attributes, 'gen_ai.operation.name')).toBe('execute_tool');
      expect(attribute(denied.attributes, 'error.type')).toBe('permission_denied');
      expect(attribute(denied.attributes, 'toolpact.gate.rule')).toBe('no-add');
      expect(denied.status.code).toBe(2);
      expect(denied.kind).toBe(1); // SPAN_KIND_INTERNAL in OTLP

      // Metrics: the duration histogram and the call counter, by tool and outcome.
      const metrics = bodies('/v1/metrics').flatMap(
        (body: { resourceMetrics: { scopeMetrics: { metrics: never[] }[] }[] }) =>
          body.resourceMetrics.flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics)),
      ) as {
        name: string;
        unit: string;
        histogram?: { dataPoints: { count: string | number; attributes: KeyValue[] }[] };
        sum?: { dataPoints: { asInt?: string | number; asDouble?: number; attributes: KeyValue[] }[] };
      }[];
      const duration = metrics.find((metric) => metric.name === 'gen_ai.execute_tool.duration')!;
      expect(duration.unit).toBe('s');
      const echoes = duration.histogram!.dataPoints.find(
        (point) => attribute(point.attributes, 'gen_ai.tool.name') === 'echo',
      )!;
      expect(Number(echoes.count)).toBe(2);
      const calls = metrics.find((metric) => metric.name === 'toolpact.tool.calls')!;
      const deniedCalls = calls.sum!.dataPoints.find(
        (point) => attribute(point.attributes, 'toolpact.gate.decision') === 'deny',
      )!;
      expect(Number(deniedCalls.asDouble ?? deniedCalls.asInt)).toBe(1);

      // Logs: one audit record per call, linked to its span, the same entry the SQLite file keeps.
      const records = bodies('/v1/logs').flatMap(
        (body: { resourceLogs: { scopeLogs: { logRecords: never[] }[] }[] }) =>
          body.resourceLogs.flatMap((resource) => resource.scopeLogs.flatMap((scope) => scope.logRecords)),
      ) as {
        eventName: string;
        severityText: string;
        traceId: string;
        spanId: string;
        body: { kvlistValue: { values: KeyValue[] } };
        attributes: KeyValue[];
      }[];
      expect(records).toHaveLength(3);
      expect(records.every((record) => record.eventName === 'toolpact.audit')).toBe(true);
      const deniedRecord = records.find(
        (record) => attribute(record.attributes, 'gen_ai.tool.name') === 'add',
      )!;
      expect(deniedRecord.severityText).toBe('WARN');
      expect(deniedRecord.spanId).toBe(denied.spanId);
      expect(deniedRecord.traceId).toBe(denied.traceId);
      expect(attribute(deniedRecord.body.kvlistValue.values, 'outcome')).toBe('permission_denied');
      expect(queryAuditLog(audit).map((entry) => [entry.tool, entry.outcome])).toEqual([
        ['echo', 'ok'],
        ['echo', 'ok'],
        ['add', 'permission_denied'],
      ]);
    } finally {
      await otlp.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
