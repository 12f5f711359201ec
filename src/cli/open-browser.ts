/** Opening a URL in the user's browser, for `toolpact studio --open`. */
import { spawn } from 'node:child_process';

/** Opens the default browser without a shell; a failure only prints a hint. */
export function openBrowser(url: string, stderr: (text: string) => void): void {
  const [command, ...args] =
    process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['rundll32', 'url.dll,FileProtocolHandler', url]
        : ['xdg-open', url];
  try {
    const child = spawn(command!, args, { stdio: 'ignore', detached: true });
    child.on('error', () =>
      stderr(`toolpact studio: could not start "${command}"; open the URL yourself.\n`),
    );
    child.unref();
  } catch {
    stderr(`toolpact studio: could not start "${command}"; open the URL yourself.\n`);
  }
}
