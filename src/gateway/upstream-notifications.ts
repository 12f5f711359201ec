import type { LoggingMessageNotification } from '@modelcontextprotocol/client';
import type { McpConnection, McpNotificationScreen } from '../mcp/connect.js';
import { visible } from './terminal-text.js';

/**
 * What an upstream's notifications cost, decided before the MCP client parses them (issue 26 §5):
 * log and progress notifications over the rate (`take`) are dropped, progress under the rate is handed
 * to `progress` (never to the client, which knows none of the gateway's tokens), `list_changed` to the
 * coalescer (`listChanged` for tools, `catalogChanged` for resources and prompts, once they are
 * followed), and anything
 * else goes on. A flood of either costs one `JSON.parse` a message, and no garbage the client's
 * validation would make.
 *
 * @example
 * connectMcpServer(target, { screen: notificationScreen(() => bucket.take(), () => relist) });
 */
export function notificationScreen(
  take: () => boolean,
  listChanged: () => (() => void) | undefined,
  progress: (params: unknown) => void = () => {},
  catalogChanged: () => (() => void) | undefined = () => undefined,
): McpNotificationScreen {
  return ({ method, params }) => {
    switch (method) {
      case 'notifications/message':
        return take();
      case 'notifications/progress':
        // Passed on here, in the order the server sent it: the MCP client handles notifications a
        // tick later than responses, so a call's last progress would arrive after its result.
        if (take()) progress(params);
        return false;
      case 'notifications/tools/list_changed':
        listChanged()?.();
        return false;
      case 'notifications/resources/list_changed':
      case 'notifications/prompts/list_changed':
        catalogChanged()?.();
        return false;
      default:
        return true;
    }
  };
}

/**
 * Log notifications that passed the screen are told to the operator, and to `forward` (which passes
 * them to the client whose call the server serves).
 *
 * @example
 * followLogs(connection, (line) => console.error(line));
 */
export function followLogs(
  connection: McpConnection,
  log: (line: string) => void,
  forward?: (params: LoggingMessageNotification['params']) => void,
): void {
  connection.client.setNotificationHandler('notifications/message', (notification) => {
    forward?.(notification.params);
    const { level, logger, data } = notification.params;
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    // For the operator: whole paths kept, only what a terminal would hide or act on made visible.
    log(`log ${level}${logger ? ` (${logger})` : ''}: ${visible(String(text).slice(0, 500))}`);
  });
}

/**
 * `list_changed` coalesced: at most one listing in flight and one pending, so 300,000 notifications
 * in a row cost a few listings, not 300,000 queued ones. A failed listing keeps the previous tools.
 * `current` says whether the connection is still the upstream's; `working` is told of each run. The
 * function returned is called for each notification.
 *
 * @example
 * const changed = coalesceListChanges(() => list(connection), () => alive, (work) => { pending = work; });
 */
export function coalesceListChanges(
  list: () => Promise<void>,
  current: () => boolean,
  working: (work: Promise<void>) => void,
): () => void {
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
  return () => {
    if (listing) {
      pending = true;
      return;
    }
    if (current()) working(relist());
  };
}
