/**
 * `toolpact/sandbox`: running shell commands confined with bubblewrap, for execute tools.
 *
 * @example
 * import { createBubblewrapSandbox } from 'toolpact/sandbox';
 * const sandbox = createBubblewrapSandbox({ workspace: process.cwd() });
 */
export {
  bubblewrapArgs,
  type ProcessLimitMethod,
  SANDBOX_WORKSPACE,
} from './bubblewrap-args.js';
export {
  type BubblewrapSandbox,
  type BubblewrapSandboxOptions,
  createBubblewrapSandbox,
} from './bubblewrap-sandbox.js';
export { DEFAULT_SANDBOX_LIMITS, resolveLimits, type SandboxLimits } from './sandbox-limits.js';
export type { SandboxRun, StopReason } from './sandbox-result.js';
