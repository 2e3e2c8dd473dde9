/** Socket credentials: shape checks at the edge, refresh before `expires`, back-off on failure, no value in JSON. */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RestClient } from "../../src/rest/client.js";
import {
  CredentialShapeError,
  connectFields,
  parseCredential,
  SocketCredentials,
} from "../../src/streams/index.js";

afterEach(() => {
  vi.useRealTimers();
});

function rest(answers: Array<unknown | Error>): { client: RestClient; calls: unknown[] } {
  const calls: unknown[] = [];
  const client = {
    call: async (id: string, q: unknown) => {
      calls.push([id, q]);
      const a = answers.shift();
      if (a instanceof Error) throw a;
      return a;
    },
  } as unknown as RestClient;
  return { client, calls };
}

describe("socket credentials", () => {
  it("refuses malformed answers with a typed error", () => {
    expect(() => parseCredential(null)).toThrow(CredentialShapeError);
    expect(() => parseCredential({ api_key: "k", expires: 1 })).toThrow(/signature/);
    expect(() => parseCredential({ api_key: "k", signature: "s", expires: "soon" })).toThrow(/expires/);
    expect(parseCredential({ api_key: "k", signature: "s", expires: "1718000300000" }).expires).toBe(
      1718000300000,
    );
  });

  it("asks for the configured lifetime, refreshes when a third is left, retries failures with back-off", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const r = rest([
      { api_key: "k1", expires: 1_000_000 + 300_000, signature: "sig-1" },
      new Error("network"),
      { api_key: "k2", expires: 1_000_000 + 800_000, signature: "sig-2" },
    ]);
    const c = new SocketCredentials({ rest: r.client, ttlS: 300, retryMs: 1_000 });
    c.start();
    expect((await c.get()).signature).toBe("sig-1");
    expect(r.calls[0]).toEqual(["hft.socketSignature", [["expires_in_seconds", "300"]]]);
    // 2/3 of 300 s = 198 s: not yet at 197 s, the refresh at 198 s fails, the retry 1 s later succeeds.
    await vi.advanceTimersByTimeAsync(197_000);
    expect(r.calls.length).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(r.calls.length).toBe(2);
    expect(c.stats.failures).toBe(1);
    expect(c.current()?.signature).toBe("sig-1"); // still valid: kept
    await vi.advanceTimersByTimeAsync(1_000);
    expect(r.calls.length).toBe(3);
    expect(c.current()?.signature).toBe("sig-2");
    expect(JSON.stringify(c)).not.toContain("sig-");
    c.stop();
  });

  it("an expired credential is not handed out", async () => {
    vi.useFakeTimers({ now: 5_000 });
    const r = rest([
      { api_key: "k", expires: 6_000, signature: "s1" },
      { api_key: "k", expires: 99_000, signature: "s2" },
    ]);
    const c = new SocketCredentials({ rest: r.client });
    await c.get();
    c.stop();
    vi.setSystemTime(6_000);
    expect(c.current()).toBeUndefined();
    expect((await c.get()).signature).toBe("s2");
  });

  it("maps the credential onto the CONNECT per auth mode", () => {
    const cred = { apiKey: "K", expires: 7, signature: "S" };
    expect(connectFields("userPass", cred)).toEqual({ user: "K", pass: "S" });
    expect(connectFields("token", cred)).toEqual({ auth_token: "S" });
    expect(connectFields("tokenJoined", cred)).toEqual({ auth_token: "K:7:S" });
    expect(connectFields("connectFields", cred)).toEqual({ api_key: "K", expires: 7, signature: "S" });
  });
});
