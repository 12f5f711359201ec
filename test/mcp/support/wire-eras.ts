import { invalidMessages, type Recording } from './wire.js';

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/** True for a request or notification that claims revision 2026-07-28 in its `_meta` envelope. */
function claimsModern(message: Recording['sent'][number]): boolean {
  if (!('method' in message)) return false;
  const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta?.[PROTOCOL_VERSION_KEY] === '2026-07-28';
}

/**
 * Every message a client sent, each checked against the schema of the revision it speaks: requests
 * and notifications carrying the 2026-07-28 `_meta` envelope (the era probe, and everything on a
 * modern connection) against 2026-07-28, the rest against 2025-11-25. One line per invalid message.
 */
export function invalidClientMessagesByEra(recording: Recording): string[] {
  const modern: Recording = { sent: recording.sent.filter(claimsModern), received: recording.received };
  const legacy: Recording = {
    sent: recording.sent.filter((message) => !claimsModern(message)),
    received: recording.received,
  };
  return [
    ...invalidMessages('client', modern, '2026-07-28'),
    ...invalidMessages('client', legacy, '2025-11-25'),
  ];
}
