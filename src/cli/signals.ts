// SIGTERM (and SIGINT where a command does not handle Ctrl-C itself) ends a command cleanly and soon: `timeout`,
// systemd and container stops send SIGTERM and wait a few seconds before SIGKILL. The Temporal runtime's own
// signal handling is off in the CLI (installRuntimeLogger's `signals: false`): it swallowed SIGTERM, shutting
// down workers but never ending the process.
//
// What a stop means is the command's business: `run` and `chat` detach (the conversation goes on durably; the
// next worker resumes it), the others just end. withHermes races the command against `stopping()`, so once the
// command has returned its exit code the in-process worker is shut down, the connection closed and the embedded
// server stopped as after any command. Whatever is still running after STOP_DEADLINE_MS is cut short by an exit
// (the embedded server is still sent SIGTERM by its exit hook): a stop never takes longer than that.

/** 128 + the signal's number, as a shell reports a process the signal ended. */
export const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
export type StopSignal = keyof typeof EXIT_CODES;

/** After a stop signal, the process exits by this time whatever is still running. */
export const STOP_DEADLINE_MS = 4_500;

const controller = new AbortController();
let received: StopSignal | undefined;
let sigintClaims = 0;
let installed = false;

/** Aborted at the first stop signal; `reason` is the signal's name. */
export const stopSignal: AbortSignal = controller.signal;

/** The signal that stopped the command, if one did. */
export function stoppedBy(): StopSignal | undefined {
  return received;
}

/** Resolves with the signal's name once a stop signal arrives (never rejects). */
export function stopping(): Promise<StopSignal> {
  if (received) return Promise.resolve(received);
  return new Promise((resolve) => stopSignal.addEventListener('abort', () => resolve(received!), { once: true }));
}

/**
 * While the returned function has not been called, SIGINT is the command's own (`run` interrupts the
 * conversation on the first Ctrl-C): it is not a stop signal.
 */
export function claimSigint(): () => void {
  sigintClaims++;
  let released = false;
  return () => {
    if (!released) sigintClaims--;
    released = true;
  };
}

/** Stops the command as the signal would: the detach path of a second Ctrl-C. */
export function stopNow(sig: StopSignal): void {
  if (received) return;
  received = sig;
  // unref'd: a command that has cleaned up exits on its own first; the timer only cuts a clean-up that hangs.
  setTimeout(() => process.exit(EXIT_CODES[sig]), STOP_DEADLINE_MS).unref();
  // A call still in flight when the connection closes and the embedded server stops can have the SDK's gRPC retry
  // timer try again on the closed channel, which throws from the timer: nothing is lost by then, so that one error
  // does not turn the stop into a crash.
  process.on('uncaughtException', (err) => {
    if (/Channel has been shut down/.test(err.message)) return;
    process.stderr.write(`hermes: ${err.stack ?? err.message}\n`);
    process.exit(1);
  });
  controller.abort(sig);
}

/**
 * What the command says when a stop signal ends it (run and chat: how to follow the conversation they leave);
 * the last one set is used, and the returned function unsets it. Without one, withHermes says "stopped".
 */
export function onStop(say: (sig: StopSignal) => void): () => void {
  stopMessage = say;
  return () => {
    if (stopMessage === say) stopMessage = undefined;
  };
}
let stopMessage: ((sig: StopSignal) => void) | undefined;

/** The command's stop message, or the default one. */
export function sayStopped(sig: StopSignal): void {
  if (stopMessage) stopMessage(sig);
  else process.stderr.write(`\nhermes: ${sig}: stopped\n`);
}

/** Once per process (withHermes): SIGTERM always stops; SIGINT stops unless a command claimed it. */
export function installStopHandlers(): void {
  if (installed) return;
  installed = true;
  process.on('SIGTERM', () => {
    // A second SIGTERM while stopping: no more waiting.
    if (received) process.exit(EXIT_CODES.SIGTERM);
    stopNow('SIGTERM');
  });
  process.on('SIGINT', () => {
    if (sigintClaims > 0) return;
    if (received) process.exit(EXIT_CODES.SIGINT);
    stopNow('SIGINT');
  });
}
