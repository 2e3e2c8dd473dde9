/**
 * The simulator's time: real (wall clock + timers) or manual (virtual time advanced by tests, so
 * expiry, cancel confirmation and the synthetic market run as exact, repeatable sequences).
 */
interface Task {
  at: number;
  seq: number;
  fn: () => void;
}

export class SimClock {
  readonly manual: boolean;
  private virtualNow: number;
  private heap: Task[] = [];
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private stopped = false;

  constructor(manual: boolean, start = Date.now()) {
    this.manual = manual;
    this.virtualNow = start;
  }

  now(): number {
    return this.manual ? this.virtualNow : Date.now();
  }

  /** Runs `fn` once `delayMs` from now (in virtual time when manual). */
  schedule(delayMs: number, fn: () => void): void {
    if (this.stopped) return;
    const task = { at: this.now() + Math.max(0, delayMs), seq: this.seq++, fn };
    this.push(task);
    if (!this.manual) this.arm();
  }

  /** Manual mode: moves virtual time forward by `ms`, running due tasks in time order. */
  advance(ms: number): void {
    const target = this.virtualNow + ms;
    while (this.heap.length > 0 && this.heap[0]!.at <= target) {
      const t = this.pop()!;
      if (t.at > this.virtualNow) this.virtualNow = t.at;
      t.fn();
    }
    this.virtualNow = target;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.heap = [];
  }

  private arm(): void {
    const head = this.heap[0];
    if (head === undefined || head.at >= this.timerAt) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = head.at;
    this.timer = setTimeout(this.runDue, Math.max(0, head.at - Date.now()));
    this.timer.unref?.();
  }

  private readonly runDue = (): void => {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    while (this.heap.length > 0 && this.heap[0]!.at <= now) this.pop()!.fn();
    if (!this.stopped) this.arm();
  };

  private less(a: Task, b: Task): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private push(t: Task): void {
    const h = this.heap;
    h.push(t);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private pop(): Task | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last !== undefined) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
