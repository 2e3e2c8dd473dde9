/**
 * The engine's parts wired together: the order store with the engine as its listener, and each part
 * built over it (owners, account, notifier, the venue ingest, the create/cancel/amend paths, the
 * control), given each other as they need. Built once per engine (src/engine/engine.ts); nothing here
 * runs after construction.
 */
import type { Logger } from "pino";
import type { ClockGate } from "../clock/clockSync.js";
import type { NewOrderCmd, SessionInfo } from "../gateway/engineApi.js";
import type { Journal } from "../journal/writer.js";
import type { RateLimiter } from "../limits/index.js";
import { type Order, type OrderListener, OrderStore } from "../orders/index.js";
import { monoNs } from "../protocol/clock.js";
import type { RestClient } from "../rest/client.js";
import type { RiskGate } from "../risk/riskGate.js";
import { VenueIngest } from "../venue/ingest.js";
import type { Surfaces } from "../venue/surface.js";
import { Account, type AccountOptions } from "./account.js";
import { AmendPath } from "./amendPath.js";
import { type CancelOptions, CancelPath } from "./cancelPath.js";
import { Control } from "./control.js";
import { type CreateOptions, CreatePath } from "./createPath.js";
import type { InstrumentBook } from "./instruments.js";
import type { EngineMetrics } from "./metrics.js";
import { Notifier } from "./notifier.js";
import { Owners } from "./owners.js";
import { OPEN_GATE, type SendGate } from "./readiness.js";
import type { RunState } from "./runState.js";

/**
 * The engine's knobs: the config's own sections (the start-up passes the config whole; each part
 * picks what it reads), plus the account's two pacing settings, which are no knobs.
 */
export type EngineOptions = CreateOptions & CancelOptions & AccountOptions;

export interface EngineDeps {
  client: RestClient;
  instruments: InstrumentBook;
  risk: RiskGate;
  limiter: RateLimiter | undefined;
  journal: Journal | undefined;
  metrics: EngineMetrics;
  log: Logger;
  options: EngineOptions;
  /** The venue surfaces the command path speaks to (built once: src/venue/surfaces.ts). */
  surfaces: Surfaces;
  /** What the engine asks of the parts built around it (venue sync, feeds); all optional. */
  links?: EngineLinks;
  /** The clock guard of the REST stack (absent: signing is never refused by the clock). */
  clock?: ClockGate;
}

/**
 * The engine's calls into the parts that are built after it (they need its store and command path):
 * given at construction as functions, read when called, never set afterwards.
 */
export interface EngineLinks {
  /** An order needs a targeted query soon (unknown outcome, refused cancel, eager HFT query). */
  resolveSoon?: (o: Order) => void;
  /** Per surface: whether a new order is sent now or held while its surface reconciles (default: sent). */
  gate?: SendGate;
  /** The kill switch's sweep of venue orders the store does not hold. */
  venueSweep?: () => void;
}

/** The engine's parts, each owning one thing (see src/engine/engine.ts's header). */
export interface EngineParts {
  readonly store: OrderStore;
  readonly owners: Owners;
  readonly account: Account;
  readonly notifier: Notifier;
  /**
   * The engine's way into the store for venue records it holds itself: the records create and cancel
   * answers carry, and (for the restart's replay) records read back from the journal.
   */
  readonly ingest: VenueIngest;
  readonly creates: CreatePath;
  readonly cancels: CancelPath;
  readonly amends: AmendPath;
  readonly control: Control;
}

/** Builds the parts over one order store whose changes go to `listener` (the engine). */
export function buildParts(d: EngineDeps, run: RunState, listener: OrderListener): EngineParts {
  const links = d.links ?? {};
  const resolveSoon = (o: Order) => links.resolveSoon?.(o);
  const store = new OrderStore({ listener });
  // The owners cancel on disconnect through the cancel path, built below: read when called.
  let cancels: CancelPath | undefined;
  const owners = new Owners({
    store,
    journal: d.journal,
    log: d.log,
    run,
    cancel: (o) => cancels!.cancelOne(o, 0, false),
  });
  const account = new Account({
    client: d.client,
    book: d.instruments,
    limiter: d.limiter,
    owners,
    run,
    log: d.log,
    options: d.options,
  });
  const notifier = new Notifier({
    store,
    book: d.instruments,
    risk: d.risk,
    owners,
    account,
    metrics: d.metrics,
    run,
  });
  const ingest = new VenueIngest({
    gridOf: (id) => d.instruments.byId(id)?.grid,
    apply: (ev) => store.apply(ev),
    journal: undefined,
    onInvalid: () => d.metrics.invalidEvents.inc(),
  });
  const surfaces = d.surfaces;
  const common = {
    client: d.client,
    limiter: d.limiter,
    journal: d.journal,
    metrics: d.metrics,
    clock: d.clock,
  };
  const creates = new CreatePath({
    ...common,
    book: d.instruments,
    risk: d.risk,
    log: d.log,
    store,
    owners,
    notifier,
    account,
    ingest,
    surfaces,
    run,
    options: d.options,
    gate: links.gate ?? OPEN_GATE,
    resolveSoon,
  });
  cancels = new CancelPath({
    ...common,
    store,
    owners,
    account,
    ingest,
    surfaces,
    run,
    options: d.options,
    resolveSoon,
  });
  const amends = new AmendPath({
    ...common,
    book: d.instruments,
    risk: d.risk,
    store,
    owners,
    surfaces,
    cancels,
    run,
    options: d.options,
    resolveSoon,
    placeReplacement: (session: SessionInfo, cmd: NewOrderCmd) => creates.onNewOrder(session, cmd, monoNs()),
  });
  const control = new Control({
    risk: d.risk,
    journal: d.journal,
    log: d.log,
    owners,
    cancels,
    run,
    venueSweep: () => links.venueSweep?.(),
  });
  return { store, owners, account, notifier, ingest, creates, cancels, amends, control };
}
