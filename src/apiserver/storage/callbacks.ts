// Calling watchers' callbacks from storage code.

/**
 * Runs a watcher callback so that a throw cannot break the writer or the other watchers: the
 * error is rethrown on its own (an uncaught exception, like an EventEmitter listener's).
 */
export function guard(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    queueMicrotask(() => {
      throw err;
    });
  }
}
