/**
 * The engine as the package's `hftgate` entry starts it inside a host program: its log lines go to
 * the logger the host gives (`createLogger({ destination })` keeps hftgate's secret redaction), else to
 * stderr as JSON, never to the host's stdout; and it journals only where the host says (`journal.dir`),
 * never into a `var/journal` of whatever directory the host runs in.
 */
import type { Config } from "../config/load.js";
import { KNOBS } from "../config/schema.js";
import { createLogger } from "../telemetry/logger.js";
import type { EngineHandle, StartOptions } from "./engineHandle.js";
import { startEngine as startInProcess } from "./lifecycle.js";
import { StartupError } from "./startupError.js";

const DEFAULT_JOURNAL_DIR = KNOBS.find((k) => k.path === "journal.dir")?.def;

/**
 * Starts the gateway in this process (`loadConfig({ overrides })` for the config). Refused with a
 * StartupError when the journal is on and `journal.dir` is left at its default, relative to the
 * working directory: give a directory of the host's own, or `journal.enabled: false`.
 */
export function startEngine(config: Config, opts: StartOptions = {}): Promise<EngineHandle> {
  if (config.journal.enabled && config.journal.dir === DEFAULT_JOURNAL_DIR) {
    return Promise.reject(
      new StartupError(
        `journal.dir is not set: the embedded engine does not journal into the working directory (${process.cwd()}); ` +
          'give it a directory of its own (overrides { "journal.dir": "/path/for/hftgate/{venue}" }) or turn the journal off ("journal.enabled": false)',
      ),
    );
  }
  const logger =
    opts.logger ?? createLogger({ level: config.log.level, pretty: "false", destination: process.stderr });
  return startInProcess(config, { ...opts, logger });
}
