/**
 * Journal before the socket, for the venue request itself: when the HTTP client is handed a request,
 * the journal file already holds the command and the request (written in one write on that turn,
 * not left to a later event-loop turn that a same-turn HTTP write would overtake).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { VenueRequest } from "../../src/engine/venueRequest.js";
import { readJournal } from "../../src/journal/reader.js";
import { Journal } from "../../src/journal/writer.js";
import type { Order } from "../../src/orders/index.js";
import type { PreparedRequest } from "../../src/rest/client.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("venue request journal order", () => {
  it("the command and the request are in the file when the HTTP client gets the request", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hftgate-jbs-"));
    dirs.push(dir);
    const journal = Journal.open({ dir });
    const onDisk: string[][] = [];
    const vr = new VenueRequest(
      {
        client: {
          // What a reader of the file sees at the moment the request would be written to the socket.
          sendTo: () =>
            void onDisk.push(readJournal(journal.path).records.map((r) => `${r.k}:${r.clientId}`)),
        },
        limiter: undefined,
        journal,
        surfaces: {} as never,
        run: { dead: false },
      },
      {
        op: "create",
        spends: "create",
        prepare: () =>
          ({ endpoint: { method: "POST" }, path: "/trade/api/v2/order" }) as unknown as PreparedRequest,
        sending: () => {},
        answered: () => {},
        failed: () => {},
        refused: () => {},
      },
    );
    for (const id of ["c1", "c2"]) {
      journal.command({ session: "s", op: "new", clientId: id });
      vr.send({ clientId: id } as Order);
    }
    expect(onDisk).toEqual([
      ["cmd:c1", "req:c1"],
      ["cmd:c1", "req:c1", "cmd:c2", "req:c2"],
    ]);
    // One write per send (each carrying its command and its request), none left for a later turn.
    expect(journal.stats.writes).toBe(2);
    await journal.close();
  });
});
