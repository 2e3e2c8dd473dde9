import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Gateway } from "../../src/gateway/gateway.js";
import { detectUws } from "../../src/gateway/native.js";
import { TestEngine } from "./testEngine.js";

describe("uWebSockets.js native detection", () => {
  const saved = process.env.UWS_USE_FALLBACK;
  afterEach(() => {
    if (saved === undefined) delete process.env.UWS_USE_FALLBACK;
    else process.env.UWS_USE_FALLBACK = saved;
  });

  it("reports native exactly when this platform's binary exists and loads", () => {
    delete process.env.UWS_USE_FALLBACK;
    const r = detectUws();
    expect(r.binary).toMatch(
      new RegExp(`uws_${process.platform}_${process.arch}_${process.versions.modules}\\.node$`),
    );
    expect(r.native).toBe(existsSync(r.binary));
  });

  it("falls back to the ws server, loudly, when the package would use its JS shim", async () => {
    process.env.UWS_USE_FALLBACK = "1";
    const warnings: string[] = [];
    const gw = new Gateway(new TestEngine(), {
      token: "t",
      port: 0,
      logger: { info: () => {}, warn: (_o, m) => warnings.push(m) },
    });
    expect(gw.uws.native).toBe(false);
    await gw.start();
    try {
      expect(gw.transportKind).toBe("ws");
      expect(warnings.join("\n")).toMatch(/NOT available.*ws/);
    } finally {
      await gw.close();
    }
  });
});
