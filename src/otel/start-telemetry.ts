import type { Meter, Tracer } from '@opentelemetry/api';
import type { Logger } from '@opentelemetry/api-logs';
import { metrics, trace } from './api.js';
import { SCOPE_NAME } from './attributes.js';

/** Options of {@link startTelemetry}. */
export interface TelemetryOptions {
  /** `service.name` of the resource when `OTEL_SERVICE_NAME` does not set one (default `toolpact`). */
  readonly serviceName?: string;
  /** How often metrics are exported, in milliseconds (default `OTEL_METRIC_EXPORT_INTERVAL`, else 60,000). */
  readonly metricExportIntervalMs?: number;
}

/** The OpenTelemetry SDK {@link startTelemetry} set up, registered as the global providers. */
export interface Telemetry {
  readonly tracer: Tracer;
  readonly meter: Meter;
  /** For audit records: pass it to `createOtelAuditSink`. */
  readonly logger: Logger;
  /** Flushes what is buffered and stops exporting; call it before the process exits. */
  readonly shutdown: () => Promise<void>;
}

/** The packages {@link startTelemetry} loads; optional peer dependencies of toolpact. */
export const TELEMETRY_PACKAGES: readonly string[] = Object.freeze([
  '@opentelemetry/api',
  '@opentelemetry/api-logs',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/sdk-logs',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/exporter-metrics-otlp-http',
  '@opentelemetry/exporter-logs-otlp-http',
]);

/**
 * Starts the OpenTelemetry SDK for a process and registers it globally: traces, metrics and logs,
 * each exported over OTLP/HTTP (JSON) by the official exporters, configured the standard way by the
 * `OTEL_EXPORTER_OTLP_*` environment variables (endpoint, per-signal endpoints, headers, timeout,
 * compression; default `http://localhost:4318`), with the resource from `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES`. Context follows `await` (AsyncLocalStorage), so spans nest. The SDK
 * packages load only now; a missing one throws an error naming the install command.
 * What `toolpact serve --otel` runs.
 *
 * @example
 * const telemetry = await startTelemetry({ serviceName: 'my-agent' });
 * instrument(registry, telemetry);
 * process.once('SIGTERM', () => void telemetry.shutdown());
 */
export async function startTelemetry(options: TelemetryOptions = {}): Promise<Telemetry> {
  const [logsApi, resources, traceSdk, metricsSdk, logsSdk, traceExporter, metricExporter, logExporter] =
    await loadPackages();
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': options.serviceName ?? 'toolpact' }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const intervalMs =
    options.metricExportIntervalMs ?? (Number(process.env.OTEL_METRIC_EXPORT_INTERVAL) || 60_000);

  const tracerProvider = new traceSdk.NodeTracerProvider({
    resource,
    spanProcessors: [new traceSdk.BatchSpanProcessor(new traceExporter.OTLPTraceExporter())],
  });
  tracerProvider.register();
  const meterProvider = new metricsSdk.MeterProvider({
    resource,
    readers: [
      new metricsSdk.PeriodicExportingMetricReader({
        exporter: new metricExporter.OTLPMetricExporter(),
        exportIntervalMillis: intervalMs,
      }),
    ],
  });
  metrics.setGlobalMeterProvider(meterProvider);
  const loggerProvider = new logsSdk.LoggerProvider({
    resource,
    processors: [new logsSdk.BatchLogRecordProcessor({ exporter: new logExporter.OTLPLogExporter() })],
  });
  logsApi.logs.setGlobalLoggerProvider(loggerProvider);

  let stopped: Promise<void> | undefined;
  return {
    tracer: trace.getTracer(SCOPE_NAME),
    meter: metrics.getMeter(SCOPE_NAME),
    logger: logsApi.logs.getLogger(SCOPE_NAME),
    shutdown: () => {
      stopped ??= Promise.allSettled([
        tracerProvider.shutdown(),
        meterProvider.shutdown(),
        loggerProvider.shutdown(),
      ]).then(() => {
        trace.disable();
        metrics.disable();
        logsApi.logs.disable();
      });
      return stopped;
    },
  };
}

async function loadPackages() {
  try {
    return await Promise.all([
      import('@opentelemetry/api-logs'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/sdk-metrics'),
      import('@opentelemetry/sdk-logs'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/exporter-metrics-otlp-http'),
      import('@opentelemetry/exporter-logs-otlp-http'),
    ]);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Exporting OpenTelemetry needs the SDK and OTLP exporter packages, and one did not load (${reason}). Install them: npm install ${TELEMETRY_PACKAGES.join(' ')}`,
      { cause: error },
    );
  }
}
