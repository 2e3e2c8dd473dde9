/**
 * `hftgate replay <journal file or directory> [--order <clientId>] [--full]`: prints each order's
 * full history (commands, requests, responses, stream events) from a journal, oldest first.
 */
import { statSync } from "node:fs";
import { formatRecord, orderHistories } from "../journal/history.js";
import { listJournals, replayJournals } from "../journal/reader.js";
import type { JournalRecord } from "../journal/records.js";
import { bool, type CommandSpec, command, str } from "./args.js";

export const spec: CommandSpec = {
  name: "replay",
  summary: "print each order's history (commands, requests, responses, stream events) from a journal",
  positionals: "<journal file or directory>",
  minPositionals: 1,
  options: {
    order: { type: "string", value: "CLIENT_ID", help: "only this order (its client order id)" },
    full: {
      type: "boolean",
      help: "print request and response bodies in full (default: first 300 characters)",
    },
  },
};

export const run = command(spec, async (args) => {
  const target = args.positionals[0]!;
  let files: string[];
  try {
    files = statSync(target).isDirectory() ? listJournals(target) : [target];
  } catch {
    process.stderr.write(`replay: cannot read ${target}\n`);
    return 2;
  }
  const records: JournalRecord[] = [];
  let summary: ReturnType<typeof replayJournals>;
  try {
    summary = replayJournals(files, (r) => records.push(r));
  } catch (err) {
    process.stderr.write(`replay: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  const bodyMax = bool(args, "full") ? Number.POSITIVE_INFINITY : 300;
  const histories = orderHistories(records);
  const only = str(args, "order");
  const out: string[] = [];
  if (only !== undefined) {
    const h = histories.get(only);
    if (h === undefined) {
      process.stderr.write(`replay: no order ${JSON.stringify(only)} in ${files.length} journal file(s)\n`);
      return 1;
    }
    out.push(`order ${only} (${h.length} records)`);
    for (const r of h) out.push(`  ${formatRecord(r, bodyMax)}`);
  } else {
    for (const [id, h] of histories) {
      out.push(`order ${id} (${h.length} records)`);
      for (const r of h) out.push(`  ${formatRecord(r, bodyMax)}`);
      out.push("");
    }
    const notes = records.filter((r) => r.k === "note" && r.clientId === undefined);
    if (notes.length > 0) {
      out.push("gateway notes");
      for (const r of notes) out.push(`  ${formatRecord(r, bodyMax)}`);
      out.push("");
    }
    out.push(
      `${summary.records} records, ${histories.size} orders, ${files.length} file(s)` +
        (summary.tornBytes > 0 ? `, torn tail of ${summary.tornBytes} bytes ignored` : "") +
        (summary.corrupt > 0 ? `, ${summary.corrupt} damaged record(s) skipped` : ""),
    );
  }
  process.stdout.write(`${out.join("\n")}\n`);
  return 0;
});
