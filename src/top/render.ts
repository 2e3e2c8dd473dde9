/**
 * One frame of `hftgate top` from a GET /admin/state snapshot: plain text lines, widths fitted to the
 * terminal. Pure (no I/O), so tests and `--once` share it with the live view.
 */

export interface Snapshot {
  at: string;
  health: Record<string, unknown> & {
    feeds?: Record<string, boolean>;
    /** Per surface: ready, polling-only, holding or refusing (the /health detail). */
    surfaces?: Record<string, { state: string }>;
  };
  sessions: { id: number; name: string; connected: boolean; admin: boolean; liveOrders: number }[];
  /** Live orphans: venue orders the gateway adopted (listed under session "(orphans)"). */
  orphans?: number;
  orders: {
    session: string;
    clOrdNo: number;
    symbol: string;
    side: string;
    price: string;
    qty: string;
    filled: string;
    status: string;
    ageMs: number;
  }[];
  fills: { atMs: number; session: string; clOrdNo: number; text: string }[];
  rejects: { atMs: number; session: string; clOrdNo: number; text: string }[];
  stages: Record<string, { count: number; p50_us: number; p99_us: number }>;
  credit: Record<string, number>;
}

const BOLD = "\x1b[1m";
const DIM = "\x1b[2m";
const RED = "\x1b[31m";
const GREEN = "\x1b[32m";
const OFF = "\x1b[0m";

function table(rows: readonly (readonly string[])[]): string[] {
  const w: number[] = [];
  for (const r of rows) {
    for (let i = 0; i < r.length; i++) w[i] = Math.max(w[i] ?? 0, r[i]!.length);
  }
  return rows.map((r) => `  ${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i]!))).join("  ")}`);
}

function us(v: number): string {
  if (!Number.isFinite(v)) return "> 10 s";
  return v >= 1000 ? `${(v / 1000).toFixed(1)} ms` : `${Math.round(v)} µs`;
}

function time(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23);
}

function section(title: string, color: boolean): string {
  return color ? `${BOLD}${title}${OFF}` : title;
}

/** Lines of one frame; `width` cuts long lines, `color` adds ANSI emphasis (off for pipes). */
export function renderTop(s: Snapshot, url: string, width = 120, color = true): string[] {
  const h = s.health;
  const ok = (b: unknown) => (color ? (b ? `${GREEN}up${OFF}` : `${RED}down${OFF}`) : b ? "up" : "down");
  const feeds = Object.entries(h.feeds ?? {})
    .map(([k, v]) => `${k} ${ok(v)}`)
    .join("  ");
  const surfaces = Object.entries(h.surfaces ?? {})
    .map(([k, v]) => `${k} ${color && v.state !== "ready" ? `${RED}${v.state}${OFF}` : v.state}`)
    .join("  ");
  const state = String(h.tradingState ?? "?");
  const lines: string[] = [
    `${section("hftgate top", color)}  ${url}  ${s.at}`,
    `trading ${color && state !== "active" ? `${RED}${state}${OFF}` : state}   ready ${ok(h.ready)}   venue ${String(h.venue)}` +
      `   last venue answer ${Number(h.lastVenueOkMsAgo) >= 0 ? `${h.lastVenueOkMsAgo} ms ago` : "never"}` +
      `   feeds ${feeds || "none"}${surfaces ? `   surfaces ${surfaces}` : ""}`,
    "",
    section(`sessions (${s.sessions.length})`, color),
    ...table([
      ["id", "name", "link", "admin", "live orders"],
      ...s.sessions.map((x) => [
        String(x.id),
        x.name,
        x.connected ? "connected" : "retained",
        x.admin ? "yes" : "",
        String(x.liveOrders),
      ]),
    ]),
    ...((s.orphans ?? 0) > 0
      ? [
          "",
          `${color ? RED : ""}orphans ${s.orphans}${color ? OFF : ""}: venue orders the gateway did not place, adopted (Kill or an admin CancelAll cancels them)`,
        ]
      : []),
    "",
    section(`live orders (${String(h.liveOrders ?? s.orders.length)})`, color),
    ...table([
      ["session", "#", "instrument", "side", "price", "qty", "filled", "status", "age"],
      ...s.orders.map((o) => [
        o.session,
        String(o.clOrdNo),
        o.symbol,
        o.side,
        o.price,
        o.qty,
        o.filled,
        o.status,
        `${(o.ageMs / 1000).toFixed(1)} s`,
      ]),
    ]),
    "",
    section("latency by stage (p50 / p99, bucket bounds)", color),
    ...table([
      ["stage", "count", "p50", "p99"],
      ...Object.entries(s.stages).map(([k, v]) => [k, String(v.count), us(v.p50_us), us(v.p99_us)]),
    ]),
    "",
    section("rate-limit credit", color),
    `  ${
      Object.entries(s.credit)
        .map(([k, v]) => `${k} ${v}`)
        .join("   ") || "limiter off"
    }`,
    "",
    section("recent fills", color),
    ...(s.fills.length === 0
      ? [`  ${color ? DIM : ""}none${color ? OFF : ""}`]
      : table(s.fills.map((f) => [time(f.atMs), f.session, `#${f.clOrdNo}`, f.text]))),
    "",
    section("recent rejects", color),
    ...(s.rejects.length === 0
      ? [`  ${color ? DIM : ""}none${color ? OFF : ""}`]
      : table(s.rejects.map((f) => [time(f.atMs), f.session, `#${f.clOrdNo}`, f.text]))),
  ];
  // Cut by visible characters (ANSI sequences do not take columns).
  return lines.map((l) => cut(l, width));
}

function cut(line: string, width: number): string {
  let visible = 0;
  let out = "";
  for (let i = 0; i < line.length; i++) {
    if (line[i] === "\x1b") {
      const end = line.indexOf("m", i);
      out += line.slice(i, end + 1);
      i = end;
      continue;
    }
    if (visible >= width) continue;
    out += line[i];
    visible++;
  }
  return out;
}
