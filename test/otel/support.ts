import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** Context that follows awaits, as `NodeTracerProvider.register()` installs it in an application. */
export function useAsyncContext(): () => void {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  return () => {
    manager.disable();
    context.disable();
  };
}

/** A metric reader the test collects from on demand. */
class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The real SDK with in-memory exporters, not registered globally: pass its tracer and meter. */
export function telemetry() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracer: tracerProvider.getTracer('test'),
    meter: meterProvider.getMeter('toolpact'),
    tracerProvider,
    meterProvider,
    spans: (): ReadableSpan[] => spans.getFinishedSpans(),
    clearSpans: () => spans.reset(),
    /** The data points of one metric, each with its attributes. */
    points: async (name: string): Promise<DataPoint<number | Histogram>[]> => {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((each) => each.descriptor.name === name);
      return (metric?.dataPoints ?? []) as DataPoint<number | Histogram>[];
    },
    shutdown: async () => {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
