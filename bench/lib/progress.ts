/**
 * Progress of a long suite on stderr (results stay on stdout): one line per step on a pipe or CI log,
 * one line rewritten in place on a terminal.
 */
export interface Progress {
  step(note?: string): void;
  done(): void;
}

export function progress(suite: string, total: number): Progress {
  const tty = process.stderr.isTTY === true;
  const t0 = Date.now();
  let n = 0;
  const line = (note: string) => {
    const secs = ((Date.now() - t0) / 1000).toFixed(1);
    return `[${suite}] ${n}/${total}${note ? ` ${note}` : ""} (${secs} s)`;
  };
  return {
    step(note = "") {
      n++;
      process.stderr.write(tty ? `\r${line(note)}\x1b[K` : `${line(note)}\n`);
    },
    done() {
      if (tty) process.stderr.write("\n");
    },
  };
}
