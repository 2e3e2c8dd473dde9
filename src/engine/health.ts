/** Bodies of the loopback HTTP routes served on the gateway's port, and the top-level /health status. */
import type { HttpReply } from "../gateway/engineApi.js";

/**
 * `ok`: every surface ready. `degraded`: orders are taken, but some surface holds, refuses or relies on
 * polling (its entry under `surfaces` says which and why), or the bus or its drop copy cannot work. `starting`: the start-up reconciliation
 * has not finished. `unavailable`: the venue has not answered for the window.
 */
export type HealthStatus = "ok" | "degraded" | "starting" | "unavailable";

export function healthStatus(
  reconciled: boolean,
  venueOkMsAgo: number,
  windowMs: number,
  allSurfacesReady: boolean,
): HealthStatus {
  if (!reconciled) return "starting";
  if (venueOkMsAgo < 0 || venueOkMsAgo >= windowMs) return "unavailable";
  return allSurfacesReady ? "ok" : "degraded";
}

/** The gateway takes orders (`/health` 200). */
export function takesOrders(s: HealthStatus): boolean {
  return s === "ok" || s === "degraded";
}

/**
 * 200 with a JSON body while orders are taken (`ok`, `degraded`); 503 with the same body otherwise (a
 * boolean is `ok` / `starting`), and while a `problem` stops the flow: `status` names it ("halted":
 * the journal cannot write; "stopping": the drain of a stop), `reason` says why.
 */
export function healthReply(
  status: boolean | HealthStatus,
  detail: Record<string, unknown>,
  problem?: { status: "halted" | "stopping"; reason: string },
): HttpReply {
  const s: HealthStatus = status === true ? "ok" : status === false ? "starting" : status;
  const head = problem ?? { status: s };
  return {
    status: takesOrders(s) && problem === undefined ? 200 : 503,
    contentType: "application/json",
    body: JSON.stringify({ ...head, ...detail }),
  };
}

export function metricsReply(text: string): HttpReply {
  return { status: 200, contentType: "text/plain; version=0.0.4", body: text };
}

/** What stops the flow for /health: a journal that cannot write, then a stop in progress. */
export function flowStopped(
  journal: { readonly problem: string | undefined },
  engine: { readonly run: { readonly accepting: boolean } },
): { status: "halted" | "stopping"; reason: string } | undefined {
  if (journal.problem !== undefined) return { status: "halted", reason: journal.problem };
  if (!engine.run.accepting) return { status: "stopping", reason: "draining in-flight orders" };
  return undefined;
}
