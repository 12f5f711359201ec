/** Opening a URL in the user's browser, for `toolpact studio --open` and `toolpact gateway login`. */
import { spawn } from 'node:child_process';

/** Opens the default browser without a shell; a failure only prints a hint, after `who` (the command). */
export function openBrowser(url: string, stderr: (text: string) => void, who = 'toolpact studio'): void {
  const [command, ...args] =
    process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['rundll32', 'url.dll,FileProtocolHandler', url]
        : ['xdg-open', url];
  try {
    const child = spawn(command!, args, { stdio: 'ignore', detached: true });
    child.on('error', () => stderr(`${who}: could not start "${command}"; open the URL yourself.\n`));
    child.unref();
  } catch {
    stderr(`${who}: could not start "${command}"; open the URL yourself.\n`);
  }
}
