/**
 * Opening a URL in the user's browser (`iris dashboard`): `xdg-open` on Linux, `open` on macOS,
 * started detached with no stdio and unreferenced, so the command never waits for the opener or
 * the browser, and a browser's output never reaches the terminal. Without a display (Linux with
 * neither DISPLAY nor WAYLAND_DISPLAY) nothing is started. Never throws: the answer says whether
 * the opener started (its 'spawn' event; a missing opener is its 'error').
 *
 * node:child_process rather than execa: this is a fire-and-forget start that must not keep the
 * process alive, which is what a plain detached, unref'd spawn gives (execa's subprocess wraps
 * the child in a promise that holds on to it).
 */

/** Did an opener start? (`false`: say "open this URL in a browser".) */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'linux' ? 'xdg-open' : null;
  if (opener === null) return Promise.resolve(false);
  if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      const { spawn } = process.getBuiltinModule('node:child_process');
      const child = spawn(opener, [url], { detached: true, stdio: 'ignore', env });
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
      child.once('error', () => resolve(false));
    } catch {
      resolve(false);
    }
  });
}
