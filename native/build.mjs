// Builds the mapped journal's native part (journalmap.c) into dist/native/journalmap.node with the C
// compiler and Node's own headers. Skipped, with a line saying so, when either is missing: the journal
// then writes with write(2). Rebuilt only when the source is newer than the addon.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "native", "journalmap.c");
const out = join(root, "dist", "native", "journalmap.node");

const headerDirs = [
  process.env.npm_config_nodedir && join(process.env.npm_config_nodedir, "include", "node"),
  join(dirname(process.execPath), "..", "include", "node"),
].filter(Boolean);
const include = headerDirs.find((d) => existsSync(join(d, "node_api.h")));
const cc = process.env.CC || "cc";

function skip(reason) {
  console.log(`native/journalmap: not built (${reason}); the journal writes with write(2)`);
  process.exit(0);
}

if (existsSync(out) && statSync(out).mtimeMs >= statSync(src).mtimeMs) process.exit(0);
if (include === undefined) skip("Node's headers (node_api.h) not found");
if (spawnSync(cc, ["--version"], { stdio: "ignore" }).status !== 0) skip(`no C compiler (${cc})`);
mkdirSync(dirname(out), { recursive: true });
const r = spawnSync(
  cc,
  ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", `-I${include}`, src, "-o", out],
  { stdio: "inherit" },
);
if (r.status !== 0) skip(`${cc} failed`);
