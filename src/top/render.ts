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

/** `items` joined by `sep` into lines of at most `width` visible characters (an item is never split). */
function wrap(items: readonly string[], width: number, sep: string, indent = ""): string[] {
  const out: string[] = [];
  let line = "";
  for (const it of items) {
    if (line !== "" && visibleLength(line) + sep.length + visibleLength(it) > width) {
      out.push(line);
      line = "";
    }
    line = line === "" ? `${indent}${it}` : `${line}${sep}${it}`;
  }
  if (line !== "") out.push(line);
  return out;
}

function visibleLength(s: string): number {
  return s.replace(/\x1b\[[0-9;]*m/g, "").length;
}

/** Rows a frame must still have room for to keep the blank lines between its blocks. */
const ROWS_WORTH_A_GAP = 8;

/** A titled block: fixed lines (a table's header, "none") and rows that may be cut to fit the height. */
interface Block {
  title: string;
  fixed: string[];
  rows: string[];
}

/**
 * Lines of one frame; `width` cuts long lines (the header and the credit wrap instead), `height`
 * bounds the frame (long lists end in "… N more", the header stays on top), `color` adds ANSI
 * emphasis (off for pipes).
 */
export function renderTop(
  s: Snapshot,
  url: string,
  width = 120,
  color = true,
  height = Number.POSITIVE_INFINITY,
): string[] {
  const h = s.health;
  const ok = (b: unknown) => (color ? (b ? `${GREEN}up${OFF}` : `${RED}down${OFF}`) : b ? "up" : "down");
  const feeds = Object.entries(h.feeds ?? {}).map(([k, v]) => `${k} ${ok(v)}`);
  const surfaces = Object.entries(h.surfaces ?? {}).map(
    ([k, v]) => `${k} ${color && v.state !== "ready" ? `${RED}${v.state}${OFF}` : v.state}`,
  );
  const state = String(h.tradingState ?? "?");
  const head = [
    `${section("hftgate top", color)}  ${url}  ${s.at}`,
    ...wrap(
      [
        `trading ${color && state !== "active" ? `${RED}${state}${OFF}` : state}`,
        `ready ${ok(h.ready)}`,
        `venue ${String(h.venue)}`,
        `last venue answer ${Number(h.lastVenueOkMsAgo) >= 0 ? `${h.lastVenueOkMsAgo} ms ago` : "never"}`,
        `feeds ${feeds.join("  ") || "none"}`,
        ...(surfaces.length > 0 ? [`surfaces ${surfaces.join("  ")}`] : []),
      ],
      width,
      "   ",
    ),
  ];
  const split = (lines: string[]): { fixed: string[]; rows: string[] } => ({
    fixed: lines.slice(0, 1),
    rows: lines.slice(1),
  });
  const none = [`  ${color ? DIM : ""}none${color ? OFF : ""}`];
  // The credit by surface ("spot", "hft", …), each surface's classes wrapped, never cut.
  const bySurface = new Map<string, string[]>();
  for (const [k, v] of Object.entries(s.credit)) {
    const [surface, cls] = k.includes(".")
      ? [k.slice(0, k.indexOf(".")), k.slice(k.indexOf(".") + 1)]
      : ["", k];
    bySurface.set(surface, [...(bySurface.get(surface) ?? []), `${cls} ${v}`]);
  }
  const pad = Math.max(0, ...[...bySurface.keys()].map((k) => k.length));
  const credit = [...bySurface].flatMap(([surface, items]) =>
    wrap(items, width, "  ", `  ${surface.padEnd(pad)}  `).map((l, i) =>
      i === 0 ? l : `  ${" ".repeat(pad)}  ${l.trimStart()}`,
    ),
  );
  const blocks: Block[] = [
    {
      title: `sessions (${s.sessions.length})`,
      ...split(
        table([
          ["id", "name", "link", "admin", "live orders"],
          ...s.sessions.map((x) => [
            String(x.id),
            x.name,
            x.connected ? "connected" : "retained",
            x.admin ? "yes" : "",
            String(x.liveOrders),
          ]),
        ]),
      ),
    },
    ...((s.orphans ?? 0) > 0
      ? [
          {
            title: `${color ? RED : ""}orphans ${s.orphans}${color ? OFF : ""}: venue orders the gateway did not place, adopted (Kill or an admin CancelAll cancels them)`,
            fixed: [],
            rows: [],
          },
        ]
      : []),
    {
      title: `live orders (${String(h.liveOrders ?? s.orders.length)})`,
      ...split(
        table([
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
      ),
    },
    {
      title: "latency by stage (p50 / p99, bucket bounds)",
      ...split(
        table([
          ["stage", "count", "p50", "p99"],
          ...Object.entries(s.stages).map(([k, v]) => [k, String(v.count), us(v.p50_us), us(v.p99_us)]),
        ]),
      ),
    },
    { title: "rate-limit credit", fixed: credit.length > 0 ? credit : ["  limiter off"], rows: [] },
    {
      title: "recent fills",
      fixed: s.fills.length === 0 ? none : [],
      rows: table(s.fills.map((f) => [time(f.atMs), f.session, `#${f.clOrdNo}`, f.text])),
    },
    {
      title: "recent rejects",
      fixed: s.rejects.length === 0 ? none : [],
      rows: table(s.rejects.map((f) => [time(f.atMs), f.session, `#${f.clOrdNo}`, f.text])),
    },
  ];
  const shown = blocks.map((b) => b.rows.length);
  const size = (gap: boolean) =>
    head.length +
    blocks.reduce(
      (n, b, i) => n + (gap ? 2 : 1) + b.fixed.length + shown[i]! + (shown[i]! < b.rows.length ? 1 : 0),
      0,
    );
  // A short terminal drops the blank lines between blocks first, when they would leave few rows.
  const gap = size(true) - shown.reduce((a, n) => a + n, 0) + ROWS_WORTH_A_GAP <= height;
  // Too tall: the longest list gives up rows (ending in "… N more"), one line saved at a time.
  while (size(gap) > height) {
    let longest = -1;
    for (let i = 0; i < blocks.length; i++) {
      const cuttable = shown[i]! > (shown[i] === blocks[i]!.rows.length ? 1 : 0);
      if (cuttable && (longest < 0 || shown[i]! > shown[longest]!)) longest = i;
    }
    if (longest < 0) break;
    // The first cut of a list costs a "… N more" line, so it takes two rows.
    shown[longest]! -= shown[longest] === blocks[longest]!.rows.length ? 2 : 1;
  }
  const lines = [...head];
  blocks.forEach((b, i) => {
    const n = shown[i]!;
    if (gap) lines.push("");
    lines.push(section(b.title, color), ...b.fixed, ...b.rows.slice(0, n));
    if (n < b.rows.length) lines.push(`  ${color ? DIM : ""}… ${b.rows.length - n} more${color ? OFF : ""}`);
  });
  // Cut by visible characters (ANSI sequences do not take columns); a terminal too small for even
  // the titles keeps the top of the frame.
  return lines.slice(0, Math.max(1, height)).map((l) => cut(l, width));
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
