/**
 * Opening a URL in the user's browser (`iris dashboard`): `xdg-open` on Linux, `open` on macOS,
 * started detached with no stdio, so the command never waits for the browser and a browser's
 * output never reaches the terminal. Without a display (Linux with neither DISPLAY nor
 * WAYLAND_DISPLAY) nothing is started. Never throws: the answer says whether the opener started.
 * execa is loaded only when a browser is to be opened.
 */

/** Did an opener start? (`false`: say "open this URL in a browser".) */
export async function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'linux' ? 'xdg-open' : null;
  if (opener === null) return false;
  if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return false;
  try {
    const { execa } = await import('execa');
    const child = execa(opener, [url], { detached: true, stdio: 'ignore', cleanup: false, reject: false, env });
    // A missing opener has no pid (spawn failed at once); its failure is then the promise's.
    const started = child.pid !== undefined;
    child.catch(() => undefined);
    (child as unknown as { unref(): void }).unref();
    return started;
  } catch {
    return false;
  }
}
