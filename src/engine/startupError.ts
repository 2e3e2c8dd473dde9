/** A start-up problem the user must fix (missing keys, bad configuration); the message says what. */
export class StartupError extends Error {
  override readonly name = "StartupError";
}
