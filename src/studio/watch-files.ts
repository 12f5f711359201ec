import { existsSync, type FSWatcher, statSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';

// Editors and tools write here constantly; none of it is a tool definition.
const IGNORED = /(^|[\\/])(node_modules|\.git|dist|coverage)([\\/]|$)|~$|\.swp$/;

/**
 * Watches files and folders (the files directly in a folder) and calls `onChange` once per burst of changes,
 * `delayMs` after the last one, so an editor's save-rename-write sequence triggers one reload.
 * Returns a function that stops watching.
 *
 * @example
 * const stop = watchFiles(['examples/workspace'], () => studio.reload());
 */
export function watchFiles(paths: readonly string[], onChange: () => void, delayMs = 120): () => void {
  let timer: NodeJS.Timeout | undefined;
  const fire = (file: string | null) => {
    if (file && IGNORED.test(file)) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, delayMs);
  };
  const watchers: FSWatcher[] = [];
  for (const path of paths) {
    if (!existsSync(path)) continue;
    if (statSync(path).isDirectory()) {
      // Not recursive: on Linux that walks the whole tree (node_modules included) to set it up.
      watchers.push(watch(path, (_event, file) => fire(file)));
    } else {
      // A file replaced by a rename (how many editors save) is only seen by watching its folder.
      const name = basename(path);
      watchers.push(watch(dirname(path), (_event, file) => file === name && fire(file)));
    }
  }
  for (const watcher of watchers) watcher.on('error', () => {});
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}
