import type { Tracer } from '@opentelemetry/api';
import type { UpstreamCall, UpstreamCallWrapper } from '../gateway/upstream.js';
import { SpanKind, SpanStatusCode } from './api.js';
import { ATTRIBUTES } from './attributes.js';

/**
 * A span per upstream request of the gateway (`tools/call <tool>`, a client span under the call's
 * `execute_tool` span), with the upstream's name, era and restarts as attributes. Pass it as
 * `startGateway`'s `wrapUpstreamCall`; `toolpact gateway --otel` does.
 *
 * @example
 * const gateway = await startGateway({ config, wrapUpstreamCall: upstreamSpans(telemetry.tracer) });
 */
export function upstreamSpans(tracer: Tracer): UpstreamCallWrapper {
  return <T>(call: UpstreamCall, run: () => Promise<T>): Promise<T> =>
    tracer.startActiveSpan(
      `tools/call ${call.remoteName}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [ATTRIBUTES.upstreamName]: call.server,
          [ATTRIBUTES.upstreamEra]: call.era,
          [ATTRIBUTES.upstreamRestarts]: call.restarts,
          [ATTRIBUTES.upstreamTool]: call.remoteName,
          'rpc.system': 'jsonrpc',
          'rpc.method': 'tools/call',
        },
      },
      async (span) => {
        try {
          return await run();
        } catch (error) {
          const code = (error as { code?: unknown } | null)?.code;
          span.setAttribute(ATTRIBUTES.errorType, typeof code === 'string' ? code : 'upstream_error');
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      },
    );
}
