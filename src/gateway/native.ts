/**
 * Whether uWebSockets.js runs on its native binary. The package silently swaps in a slow pure-JS shim
 * when the `.node` file for this platform/arch/ABI is missing or fails to load (or UWS_USE_FALLBACK is
 * set), so we check the binary ourselves and report what we found; the caller logs it.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export interface UwsReport {
  /** True when the native binary loaded and `uWebSockets.js` resolves to it. */
  readonly native: boolean;
  /** Expected binary path for this platform/arch/ABI. */
  readonly binary: string;
  readonly reason: string;
}

const require = createRequire(import.meta.url);

export function detectUws(): UwsReport {
  let binary = "";
  try {
    const pkgDir = dirname(require.resolve("uWebSockets.js/package.json"));
    binary = join(
      pkgDir,
      "binaries",
      `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`,
    );
  } catch {
    return { native: false, binary, reason: "package uWebSockets.js is not installed" };
  }
  const env = process.env.UWS_USE_FALLBACK;
  if (env === "1" || env?.toLowerCase() === "true") {
    return { native: false, binary, reason: "UWS_USE_FALLBACK is set; the package would use its JS shim" };
  }
  if (!existsSync(binary)) return { native: false, binary, reason: "no native binary for this platform/ABI" };
  try {
    const nativeMod = require(binary) as object;
    const pkg = require("uWebSockets.js") as object;
    if (pkg !== nativeMod) return { native: false, binary, reason: "uWebSockets.js resolved to its JS shim" };
    return { native: true, binary, reason: "native binary loaded" };
  } catch (err) {
    return { native: false, binary, reason: `native binary failed to load: ${(err as Error).message}` };
  }
}
