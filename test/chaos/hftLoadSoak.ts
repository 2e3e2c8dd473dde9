/**
 * Long sustained-load runs of harness/hftLoad.ts (the suite runs a short one): `hftgate start` with its
 * built-in NATS endpoint or a nats-server, one strategy keeping N HFT creates in flight, each
 * cancelled on its Ack, optionally with busy processes beside it (a crowded shared box); prints the
 * report as JSON (refused, silence, stream drops, venue truth, listener still accepting, SIGTERM exit
 * time). Exit status 1 when the run found a problem.
 *
 *   npm run build && node dist/test/chaos/hftLoadSoak.js --orders 60000 --in-flight 50 --max-s 600
 *   node dist/test/chaos/hftLoadSoak.js --nats server --orders 30000      # the same through nats-server
 *   node dist/test/chaos/hftLoadSoak.js --hogs 3                           # three busy processes beside it
 *
 * A benchmark-class job: on a shared machine, run it when nothing else is measuring.
 */
import { runHftLoad } from "./harness/hftLoad.js";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const nats = arg("nats") === "server" ? "server" : "builtin";
const r = await runHftLoad({
  nats,
  orders: Number(arg("orders") ?? 60_000),
  inFlight: Number(arg("in-flight") ?? 50),
  maxMs: Number(arg("max-s") ?? 600) * 1_000,
  hogs: Number(arg("hogs") ?? 0),
  limits: process.argv.includes("--limits"),
});
process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
const bad =
  r.refusedReconciling +
  r.silentTrips +
  r.streamReconnects +
  r.venueMissing +
  r.venueDuplicated +
  r.venueNotCancelled +
  r.unanswered +
  r.cancelsUnanswered;
process.exit(bad > 0 || !r.natsAccepting ? 1 : 0);
