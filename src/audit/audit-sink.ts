import type { CallRecord } from '../registry/registry.js';

/**
 * Where audit entries go: a JSON Lines file (`openAuditLog`), a SQLite database
 * (`openSqliteAuditLog`), OpenTelemetry log records (`createOtelAuditSink` in `toolpact/otel`), or
 * several at once (`combineAuditSinks`). `observe` is what a Registry or a policy gate is given; it
 * never throws, and a record it could not keep is counted in `failed`, never lost silently.
 */
export interface AuditSink {
  /** Keeps one finished call; pass it as the Registry's (or the gate's) `observe`. */
  readonly observe: (record: CallRecord) => void;
  /** Entries kept since the sink was opened. */
  readonly written: () => number;
  /** Entries that could not be kept (a full disk, a closed sink); the call itself is never affected. */
  readonly failed: () => number;
  /** Releases the file or database; later records count as failed. */
  readonly close: () => void;
}

/** Codes of {@link AuditSinkError}. */
export type AuditSinkErrorCode = 'missing_dependency' | 'cannot_open' | 'not_an_audit_log' | 'invalid_query';

/**
 * An audit sink or query that cannot work, thrown when it is opened or asked (a setup mistake, never
 * something a model caused): the optional package it needs is missing, the file is not an audit log,
 * a query bound does not parse.
 *
 * @example
 * try { openSqliteAuditLog('audit.db') } catch (error) {
 *   if (error instanceof AuditSinkError && error.code === 'missing_dependency') console.error(error.message);
 * }
 */
export class AuditSinkError extends Error {
  override readonly name = 'AuditSinkError';
  constructor(
    readonly code: AuditSinkErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * One sink that hands every record to each of `sinks`: a local file for the replica and a collector
 * for the fleet, say. A sink that throws does not keep the others from their record.
 *
 * @example
 * const audit = combineAuditSinks(openSqliteAuditLog('audit.db'), createOtelAuditSink({ logger }));
 * const gate = createPolicyGate(policy, { observe: audit.observe });
 */
export function combineAuditSinks(...sinks: readonly AuditSink[]): AuditSink {
  return Object.freeze({
    observe: (record: CallRecord) => {
      for (const sink of sinks) {
        try {
          sink.observe(record);
        } catch {
          // A sink's own failure is its own count; the others still keep the record.
        }
      }
    },
    written: () => (sinks.length === 0 ? 0 : Math.min(...sinks.map((sink) => sink.written()))),
    failed: () => sinks.reduce((total, sink) => total + sink.failed(), 0),
    close: () => {
      for (const sink of sinks) sink.close();
    },
  });
}
