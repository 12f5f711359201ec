import type { McpConnection } from '../mcp/connect.js';
import { visible } from './terminal-text.js';

/**
 * Log and progress notifications of an upstream pass a token bucket (`take`); the gateway forwards
 * neither, so a flood of them costs parsing only, and the drops are counted by the bucket and
 * reported. A log line that passes is told to the operator.
 *
 * @example
 * followLogs(connection, () => bucket.take(), (line) => console.error(line));
 */
export function followLogs(
  connection: McpConnection,
  take: () => boolean,
  log: (line: string) => void,
): void {
  connection.client.setNotificationHandler('notifications/message', (notification) => {
    if (!take()) return;
    const { level, logger, data } = notification.params;
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    // For the operator: whole paths kept, only what a terminal would hide or act on made visible.
    log(`log ${level}${logger ? ` (${logger})` : ''}: ${visible(String(text).slice(0, 500))}`);
  });
  connection.client.setNotificationHandler('notifications/progress', () => {
    take();
  });
}

/**
 * `list_changed` coalesced: at most one listing in flight and one pending, so 300,000 notifications
 * in a row cost a few listings, not 300,000 queued ones. A failed listing keeps the previous tools.
 * `current` says whether the connection is still the upstream's; `working` is told of each run.
 *
 * @example
 * followListChanges(connection, () => list(connection), () => alive, (work) => { pending = work; });
 */
export function followListChanges(
  connection: McpConnection,
  list: () => Promise<void>,
  current: () => boolean,
  working: (work: Promise<void>) => void,
): void {
  let listing = false;
  let pending = false;
  const relist = async (): Promise<void> => {
    listing = true;
    try {
      do {
        pending = false;
        await list().catch(() => {});
      } while (pending && current());
    } finally {
      listing = false;
    }
  };
  connection.client.setNotificationHandler('notifications/tools/list_changed', () => {
    if (listing) {
      pending = true;
      return;
    }
    working(relist());
  });
}
