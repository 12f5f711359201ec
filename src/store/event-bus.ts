import { randomUUID } from 'node:crypto';
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { Client, Notification } from 'pg';

/** The PostgreSQL channel the replicas' change events travel on. */
export const EVENT_CHANNEL = 'toolpact_events';

/** A {@link ServerEventBus} over PostgreSQL, with its connection's lifetime. */
export interface PostgresEventBus extends ServerEventBus {
  /** Whether the listening connection is up (it reconnects by itself when it drops). */
  readonly listening: () => boolean;
  close(): Promise<void>;
}

/**
 * The SDK's `ServerEventBus` behind every replica's `subscriptions/listen` streams, over PostgreSQL's
 * `LISTEN`/`NOTIFY`: an event published on one replica is delivered to this replica's listeners at
 * once and, through `NOTIFY toolpact_events`, to every other replica's. Events carry the publishing
 * bus's id, so a replica never delivers its own twice. The listening connection is a dedicated one;
 * when it drops (a restarted server) it is opened again with backoff. Events published while the
 * database is away reach this replica only: a client that missed a list change sees the new list at
 * its next `tools/list` (whose cache lifetime bounds the gap).
 *
 * @example
 * const bus = await postgresEventBus(createClient);
 * await serveHttp(registry, { bus });
 */
export async function postgresEventBus(
  newClient: () => Client,
  options: { readonly onError?: (error: Error) => void } = {},
): Promise<PostgresEventBus> {
  const origin = randomUUID();
  const listeners = new Set<(event: ServerEvent) => void>();
  let client: Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let delay = 250;

  const deliver = (event: ServerEvent) => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (error) {
        options.onError?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  };

  const connect = async (): Promise<void> => {
    const next = newClient();
    next.on('error', () => {});
    next.on('notification', (message: Notification) => {
      if (message.channel !== EVENT_CHANNEL || message.payload === undefined) return;
      let parsed: { origin?: unknown; event?: unknown };
      try {
        parsed = JSON.parse(message.payload) as typeof parsed;
      } catch {
        return;
      }
      if (parsed.origin === origin || !isServerEvent(parsed.event)) return;
      deliver(parsed.event);
    });
    next.on('end', () => {
      if (client !== next) return;
      client = undefined;
      if (!closed) schedule();
    });
    await next.connect();
    await next.query(`LISTEN ${EVENT_CHANNEL}`);
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    delay = 250;
  };

  const schedule = () => {
    clearTimeout(retry);
    retry = setTimeout(() => {
      connect().catch((error: unknown) => {
        options.onError?.(error instanceof Error ? error : new Error(String(error)));
        delay = Math.min(delay * 2, 10_000);
        if (!closed) schedule();
      });
    }, delay);
    retry.unref();
  };

  await connect();

  return {
    publish(event) {
      deliver(event);
      const payload = JSON.stringify({ origin, event });
      // Sent on the listening connection when it is up; lost (for the other replicas) while it is not.
      client?.query('SELECT pg_notify($1, $2)', [EVENT_CHANNEL, payload]).catch((error: unknown) => {
        options.onError?.(error instanceof Error ? error : new Error(String(error)));
      });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    listening: () => client !== undefined,
    async close() {
      closed = true;
      clearTimeout(retry);
      const current = client;
      client = undefined;
      await current?.end().catch(() => {});
    },
  };
}

function isServerEvent(value: unknown): value is ServerEvent {
  const kind = (value as { kind?: unknown } | null)?.kind;
  return (
    kind === 'tools_list_changed' ||
    kind === 'prompts_list_changed' ||
    kind === 'resources_list_changed' ||
    (kind === 'resource_updated' && typeof (value as { uri?: unknown }).uri === 'string')
  );
}
