// A server started by npm (`npx rest-reference-server`, `npm exec`, a package.json script) stops when that npm
// process goes. npm runs a command under `sh -c`, and a signal to npm ends npm and that shell but is not handed
// on to the server beneath them, which would keep serving on its port with nobody left to stop it. The
// server's parent then changes (the orphan is adopted by init or a subreaper), which is what this watches.
// A server started any other way (`node dist/main.js`, the installed bin, `nohup … &`) is not watched: its
// parent may go on purpose, as a shell does after starting it in the background.

/** How often the parent's pid is read: cheap (one getppid), and well inside the 2 s a stopped server has to go. */
export const PARENT_POLL_MS = 200;

/** Whether a package manager started this process: npm, like pnpm and yarn, names the script or command it runs. */
export function startedByPackageManager(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.npm_lifecycle_event !== undefined;
}

/**
 * Calls `onGone` once, with the parent's pid, when this process's parent is no longer the one it started with.
 * The timer is unref'd, so it never keeps the process alive; the returned function stops the watch.
 */
export function watchParent(onGone: (parent: number) => void, pollMs = PARENT_POLL_MS): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone(parent);
  }, pollMs);
  timer.unref();
  return () => clearInterval(timer);
}
