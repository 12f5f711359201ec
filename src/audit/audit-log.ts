import { closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import type { Principal } from '../dispatch/principal.js';
import { principalKeyOf, principalOf } from '../dispatch/tool-identity.js';
import { delegationDepth } from '../policy/delegation-state.js';
import type { PolicyDecision } from '../policy/policy-gate.js';
import type { CallRecord } from '../registry/registry.js';
import { digestOf } from '../util/digest.js';
import { redactText, redactValue } from '../util/redact.js';
import type { AuditSink } from './audit-sink.js';

/** One line of the audit log. */
export interface AuditEntry {
  /** The format version. */
  readonly v: 1;
  /** When the call started, ISO 8601. */
  readonly time: string;
  readonly tool: string;
  /** What was decided on when it was not a tool call: `resource` (a read), `prompt` (a get), `sampling`. */
  readonly target?: 'resource' | 'prompt' | 'sampling';
  readonly category: string | null;
  readonly source: string | null;
  readonly callId: string | null;
  /** Digest of the validated arguments (see `digestOf`); null when the arguments never parsed. */
  readonly argumentsDigest: string | null;
  /** The arguments with secrets redacted; absent with `arguments: 'digest'`. */
  readonly arguments?: unknown;
  /** The gate's decision and the rule that made it; null when the call ended before the gate. */
  readonly decision: {
    readonly action: string;
    readonly rule: string | null;
    readonly reason: string | null;
    readonly approval: string | null;
  } | null;
  /** `ok`, or the envelope's error type. */
  readonly outcome: string;
  readonly durationMs: number;
  /** How many delegations deep the call was made (0 for the agent's own calls). */
  readonly delegationDepth: number;
  /**
   * Who called, as the approvals table spells it: `auth:<client id>` for a caller the transport
   * authenticated (the MCP `authInfo`), `local` for the local process (a call in this process, over
   * stdio, or over HTTP that nothing authenticated). What a client says about itself (`clientInfo`) never
   * counts. Null in entries written before toolpact recorded it.
   */
  readonly principal: string | null;
  /** The authenticated caller's subject (the token's `sub`); absent for the local process. */
  readonly subject?: string;
  /** The OAuth client the caller's token was issued to, when it names one. */
  readonly clientId?: string;
  /** Who vouched for the caller (the token's `iss`, or `api-key`), when known. */
  readonly issuer?: string;
  /**
   * How the result broke the tool's output schema, when it did (the first 20 issues, redacted): the
   * model was told only `invalid_result`, or, under `validateResults: 'warn'`, nothing.
   */
  readonly resultIssues?: readonly AuditedIssue[];
}

/** A result issue as the audit log keeps it. */
export interface AuditedIssue {
  readonly code: string;
  readonly path: string;
  readonly expected: string;
  readonly received: string;
}

const MAX_AUDITED_ISSUES = 20;

/** Options of {@link openAuditLog}. */
export interface AuditLogOptions {
  /** `redacted` (default) logs the arguments with secrets removed; `digest` logs only their digest. */
  readonly arguments?: 'redacted' | 'digest';
  /** Key for an HMAC digest, so short secrets cannot be guessed back from the digest. */
  readonly digestKey?: string | Uint8Array;
  /** Flush every line to the disk before the call returns (survives a power cut; slower). Default false. */
  readonly fsync?: boolean;
}

/** An open JSON Lines audit log: an {@link AuditSink} that appends one line per call to `file`. */
export interface AuditLog extends AuditSink {
  readonly file: string;
}

/**
 * Opens (or creates, mode 0600) an append-only JSON Lines audit log: one line per call, written
 * with a single `write(2)` on a file opened with `O_APPEND`, so concurrent calls and concurrent
 * processes never interleave inside a line, and a line is in the kernel before the call's result is
 * returned: a crash of the process loses nothing it reported. A power cut can lose the last lines
 * unless `fsync` is on, and can tear the very last one; the reader skips a torn line, and opening
 * the log again starts on a fresh line so the next entry is never glued to it.
 *
 * @example
 * const audit = openAuditLog('audit.jsonl');
 * const gate = createPolicyGate(policy, { approver, observe: audit.observe });
 * const registry = new Registry({ ...gate.registryOptions }).register(tools);
 */
export function openAuditLog(file: string, options: AuditLogOptions = {}): AuditLog {
  const fd = openSync(file, 'a+', 0o600);
  repairTornEnd(fd);
  let open = true;
  let written = 0;
  let failed = 0;
  const observe = (record: CallRecord): void => {
    if (!open) {
      failed++;
      return;
    }
    try {
      const line = `${JSON.stringify(toEntry(record, options))}\n`;
      writeAll(fd, Buffer.from(line, 'utf8'));
      if (options.fsync) fsyncSync(fd);
      written++;
    } catch {
      failed++;
    }
  };
  return Object.freeze({
    file,
    observe,
    written: () => written,
    failed: () => failed,
    close: () => {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  });
}

/**
 * The entry logged for one call record, for sinks other than a file (a database, a queue).
 *
 * @example
 * const registry = new Registry({ observe: (record) => queue.push(toEntry(record)) });
 */
export function toEntry(record: CallRecord, options: AuditLogOptions = {}): AuditEntry {
  const decision = record.decision as PolicyDecision | undefined;
  const parsed = record.arguments !== undefined;
  return {
    v: 1,
    time: new Date(record.startedAt).toISOString(),
    tool: redactText(record.tool).slice(0, 200),
    ...(record.target === undefined || record.target === 'tool' ? {} : { target: record.target }),
    category: record.category ?? null,
    source: decision?.source ?? null,
    callId: record.callId === undefined ? null : redactText(String(record.callId)).slice(0, 200),
    argumentsDigest: parsed ? digestOf(record.arguments, options.digestKey) : null,
    ...(options.arguments === 'digest' || !parsed ? {} : { arguments: redactValue(record.arguments) }),
    decision: decision
      ? {
          action: decision.action,
          rule: decision.rule ?? null,
          reason: decision.reason === undefined ? null : redactText(decision.reason),
          approval: decision.approval ?? null,
        }
      : null,
    outcome: record.outcome,
    durationMs: record.durationMs,
    delegationDepth: delegationDepth(record.state),
    principal: principalKeyOf(record.state),
    ...callerParts(principalOf(record.state)),
    ...(record.resultIssues?.length
      ? {
          resultIssues: record.resultIssues.slice(0, MAX_AUDITED_ISSUES).map((issue) => ({
            code: issue.code,
            path: redactText(issue.path).slice(0, 200),
            expected: redactText(issue.expected).slice(0, 200),
            received: redactText(issue.received).slice(0, 200),
          })),
        }
      : {}),
  };
}

// What the audit keeps of an authenticated caller: who, through which client, vouched for by whom.
function callerParts(principal: Principal | undefined): {
  subject?: string;
  clientId?: string;
  issuer?: string;
} {
  if (principal === undefined) return {};
  return {
    subject: redactText(principal.subject).slice(0, 200),
    ...(principal.clientId === undefined ? {} : { clientId: redactText(principal.clientId).slice(0, 200) }),
    ...(principal.issuer === undefined ? {} : { issuer: redactText(principal.issuer).slice(0, 200) }),
  };
}

function writeAll(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

// A line torn by a power cut has no newline; end it so the next entry starts on its own line.
function repairTornEnd(fd: number): void {
  const size = fstatSync(fd).size;
  if (size === 0) return;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  if (last[0] !== 0x0a) writeAll(fd, Buffer.from('\n'));
}
