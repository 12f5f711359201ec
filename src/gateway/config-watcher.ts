import { type FSWatcher, mkdirSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { type GatewayConfig, readGatewayConfig } from './config/index.js';

/** Options of {@link watchConfig}. */
export interface ConfigWatcherOptions {
  readonly configFile: string;
  readonly lockFile: string;
  /** Applies a config read again; calls are queued, never two at once. */
  readonly apply: (config: GatewayConfig) => Promise<unknown>;
  /** The lock file changed (a `gateway pin` elsewhere). */
  readonly lockChanged: () => void;
  /** The file that keeps sign-ins, watched when given: `gateway login` writes there. */
  readonly tokenFile?: string;
  /** The token file changed (a `gateway login` or `logout` elsewhere). */
  readonly tokensChanged?: () => void;
  /** Whether the gateway is closing: nothing is applied then. */
  readonly closing: () => boolean;
  /** Watch the two files (default true); without it, only {@link ConfigWatcher.reload} reads the config again. */
  readonly watch?: boolean;
  readonly log: (line: string) => void;
}

/** The config watcher of a running gateway. */
export interface ConfigWatcher {
  /** Reads the config file again and applies it, after any reload already under way. */
  reload(): Promise<void>;
  /** Stops watching and waits for the reload under way. */
  close(): Promise<void>;
}

/**
 * Watches the gateway's config and lock (and its token file, when given): a saved config is read again and applied (one that cannot be
 * read is reported, and the running one kept), a changed lock is passed on. Each file is watched
 * through its folder, since editors save by renaming, and a burst of events makes one change.
 *
 * @example
 * const watcher = watchConfig({ configFile, lockFile, apply, lockChanged: rebuild, closing: () => false, log });
 * await watcher.reload(); // what a save does
 */
export function watchConfig(options: ConfigWatcherOptions): ConfigWatcher {
  let reloading = Promise.resolve();
  const reload = () => {
    reloading = reloading.then(async () => {
      if (options.closing()) return;
      let next: GatewayConfig;
      try {
        next = readGatewayConfig(options.configFile);
      } catch (error) {
        options.log(
          `the config could not be read again, so the running one is kept: ${error instanceof Error ? error.message : String(error)}`,
        );
        return;
      }
      for (const skipped of next.skipped) options.log(`${skipped.name}: skipped: ${skipped.reason}`);
      await options.apply(next);
    });
    return reloading;
  };
  const watchers: FSWatcher[] = [];
  if (options.watch !== false) {
    watchers.push(watchFile(options.configFile, () => void reload()));
    watchers.push(
      watchFile(options.lockFile, () => {
        if (!options.closing()) options.lockChanged();
      }),
    );
    const { tokenFile, tokensChanged } = options;
    if (tokenFile !== undefined && tokensChanged !== undefined) {
      mkdirSync(dirname(tokenFile), { recursive: true, mode: 0o700 });
      watchers.push(
        watchFile(tokenFile, () => {
          if (!options.closing()) tokensChanged();
        }),
      );
    }
  }
  return {
    reload,
    async close() {
      for (const watcher of watchers) watcher.close();
      await reloading.catch(() => {});
    },
  };
}

/** Watches one file through its folder (editors save by renaming), calling `changed` once per burst. */
function watchFile(file: string, changed: () => void): FSWatcher {
  let timer: NodeJS.Timeout | undefined;
  const name = basename(file);
  const watcher = watch(dirname(file), (_event, changedName) => {
    if (changedName !== null && changedName.toString() !== name) return;
    clearTimeout(timer);
    timer = setTimeout(changed, 150);
    timer.unref();
  });
  watcher.on('error', () => {});
  watcher.unref();
  return watcher;
}
