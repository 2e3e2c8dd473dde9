import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
import { ephemeralLow, freePort } from "../../sim/index.js";

const listen = (port: number): Promise<Server> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(port, "127.0.0.1", () => resolve(s));
  });

describe("freePort", () => {
  it("hands out ports a server can listen on, each once, below the ephemeral range where there is one", async () => {
    const low = ephemeralLow();
    const ports: number[] = [];
    for (let i = 0; i < 50; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    if (low !== undefined) for (const p of ports) expect(p).toBeLessThan(low);
    const servers = await Promise.all(ports.slice(0, 10).map(listen));
    for (const s of servers) s.close();
  });

  it("never hands out a port another server holds (500 held in its range: a pick without the bind check would hit one)", async () => {
    const low = ephemeralLow() ?? 60_000;
    const held: Server[] = [];
    while (held.length < 500) {
      const s = await listen(10_000 + Math.floor(Math.random() * (low - 10_000))).catch(() => undefined);
      if (s !== undefined) held.push(s);
    }
    const heldPorts = new Set(held.map((s) => (s.address() as { port: number }).port));
    for (let i = 0; i < 300; i++) expect(heldPorts.has(await freePort())).toBe(false);
    for (const s of held) s.close();
  });
});
