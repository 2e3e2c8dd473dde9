/**
 * This test process's file size limit (RLIMIT_FSIZE), set with prlimit(1): past it the kernel refuses
 * writes (EFBIG) and file growth for real, as a full disk does (ENOSPC), without root or a mount.
 */
import { spawnSync } from "node:child_process";

/** Sets this test process's file size limit; false where prlimit cannot. */
export function fileSizeLimit(bytes: number | "unlimited"): boolean {
  return spawnSync("prlimit", ["--pid", String(process.pid), `--fsize=${bytes}:unlimited`]).status === 0;
}

/** prlimit is there and may lower this process's limit. */
export const PRLIMIT = spawnSync("prlimit", ["--version"]).status === 0 && fileSizeLimit("unlimited");
