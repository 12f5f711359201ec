import type { Logger, LogRecord } from '@opentelemetry/api-logs';
import { type AuditLogOptions, toEntry } from '../audit/audit-log.js';
import type { AuditSink } from '../audit/audit-sink.js';
import type { CallRecord } from '../registry/registry.js';
import { ATTRIBUTES } from './attributes.js';

/** Options of {@link createOtelAuditSink}. */
export interface OtelAuditSinkOptions extends AuditLogOptions {
  /** Where the records go: a logger of the OpenTelemetry logs API, e.g. `logs.getLogger('toolpact')`. */
  readonly logger: Logger;
}

/** The event name of every audit log record. */
export const AUDIT_EVENT_NAME = 'toolpact.audit';

// SeverityNumber.INFO and WARN, as numbers so the logs API is needed only as a type.
const INFO = 9 as NonNullable<LogRecord['severityNumber']>;
const WARN = 13 as NonNullable<LogRecord['severityNumber']>;

/**
 * An audit sink that sends each call as an OpenTelemetry log record (event `toolpact.audit`): the
 * audit entry, redacted exactly as the file's, as the body; tool, outcome, decision and rule as
 * attributes; INFO for a call that succeeded, WARN for one that failed. Emitted while the call's
 * span is current, so a backend links each record to its `execute_tool` span. Several replicas can
 * all send to one collector instead of each keeping a file.
 *
 * @example
 * import { logs } from '@opentelemetry/api-logs';
 * const audit = createOtelAuditSink({ logger: logs.getLogger('toolpact') });
 * const gate = createPolicyGate(policy, { observe: audit.observe });
 */
export function createOtelAuditSink(options: OtelAuditSinkOptions): AuditSink {
  const { logger } = options;
  let open = true;
  let written = 0;
  let failed = 0;
  return Object.freeze({
    observe: (record: CallRecord) => {
      if (!open) {
        failed++;
        return;
      }
      try {
        const entry = toEntry(record, options);
        const attributes: NonNullable<LogRecord['attributes']> = {
          [ATTRIBUTES.toolName]: entry.tool,
          [ATTRIBUTES.outcome]: entry.outcome,
          [ATTRIBUTES.decision]: entry.decision?.action ?? 'none',
        };
        if (entry.outcome !== 'ok') attributes[ATTRIBUTES.errorType] = entry.outcome;
        if (entry.decision?.rule) attributes[ATTRIBUTES.rule] = entry.decision.rule;
        if (entry.callId !== null) attributes[ATTRIBUTES.toolCallId] = entry.callId;
        if (entry.subject !== undefined) {
          attributes[ATTRIBUTES.enduserId] = entry.subject;
          attributes[ATTRIBUTES.userId] = entry.subject;
        }
        logger.emit({
          eventName: AUDIT_EVENT_NAME,
          timestamp: record.startedAt,
          severityNumber: entry.outcome === 'ok' ? INFO : WARN,
          severityText: entry.outcome === 'ok' ? 'INFO' : 'WARN',
          body: JSON.parse(JSON.stringify(entry)) as NonNullable<LogRecord['body']>,
          attributes,
        });
        written++;
      } catch {
        failed++;
      }
    },
    written: () => written,
    failed: () => failed,
    close: () => {
      open = false;
    },
  });
}
