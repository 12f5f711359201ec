import type { AuditSink } from '../audit/audit-sink.js';
import type { Registry } from '../registry/registry.js';
import { type InstrumentOptions, instrument } from './instrument.js';
import { createOtelAuditSink } from './otel-audit-sink.js';
import type { Telemetry } from './start-telemetry.js';

/**
 * Started telemetry as `serveRegistry` (in `toolpact/mcp`) takes it: its `audit` sends each call's
 * record as a log record, and its `instrument` makes a span and metrics of every served call.
 * Shutting the telemetry down stays yours, after the server closes.
 *
 * @example
 * const telemetry = await startTelemetry({ serviceName: 'tools' });
 * const server = await serveRegistry(registry, { telemetry: servingTelemetry(telemetry) });
 */
export function servingTelemetry(
  telemetry: Pick<Telemetry, 'tracer' | 'meter' | 'logger'>,
  options: Omit<InstrumentOptions, 'tracer' | 'meter'> = {},
): { readonly audit: AuditSink; instrument(registry: Registry): () => void } {
  return {
    audit: createOtelAuditSink({ logger: telemetry.logger }),
    instrument: (registry) =>
      instrument(registry, { ...options, tracer: telemetry.tracer, meter: telemetry.meter }),
  };
}
