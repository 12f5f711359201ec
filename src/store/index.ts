/**
 * `toolpact/store`: what a fleet of toolpact servers shares, in PostgreSQL: the audit log, the queue of
 * out-of-band approvals, the single use of request states, and the sign-ins to remote MCP servers.
 * See docs/deploy.md.
 *
 * @example
 * import { openPostgresStore } from 'toolpact/store';
 * const store = await openPostgresStore(process.env.TOOLPACT_STORE!);
 */

export type { SealedRecordStore } from '../util/token-seal.js';
export { EVENT_CHANNEL, type PostgresEventBus, postgresEventBus } from './event-bus.js';
export {
  type Approval,
  type ApprovalDecision,
  type ApprovalQueueOptions,
  type ApprovalStore,
  describeUrl,
  openPostgresStore,
  type PostgresStore,
  type PostgresStoreOptions,
} from './postgres-store.js';
export {
  type PostgresTokenStore,
  type PostgresTokenStoreOptions,
  postgresTokenStore,
} from './postgres-token-store.js';
export { MIGRATIONS, SCHEMA_VERSION } from './schema.js';
export { StoreError, type StoreErrorCode } from './store-error.js';
