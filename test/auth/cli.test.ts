import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadKeyPair } from "../../src/auth/keys.js";

// The built CLI (npm test builds dist first; run `npx tsc -p .` when calling vitest directly).
const CLI = resolve(import.meta.dirname, "..", "..", "dist", "src", "cli.js");
const SECRET = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";

function cli(args: string[], env: Record<string, string> = {}): string {
  return execFileSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
  });
}

const VECTORS = [
  [
    "GET",
    "/trade/api/v2/time",
    "GET/trade/api/v2/time1719905777483",
    "bc94df6a14d69927f0387bde81be88de8d4068ed125b9defd38f34f31f9019cb4313ee7f3aa862f9b02277879889e428a6994b1655e95a1ae12a8967dce92f07",
  ],
  [
    "GET",
    "/trade/api/v2/orders?open=true&exchanges=coinswitchx%2Cc2c1",
    "GET/trade/api/v2/orders?open=true&exchanges=coinswitchx,c2c11719905777483",
    "fba32073118304f941677a25419e1b968519007884c43f32c0046340de5c71df61c93a28de3a63ea9f4897d232421bcc8ab7655a62a42390ceb2c40bddf5990b",
  ],
  [
    "POST",
    "/v5/order/create",
    "POST/v5/order/create1719905777483",
    "c1502bb380280b45d549aba7730baf7713e97992d99afc1554bfd32ccc1660b53e5826775415bd0272f1773ed8020e06e695b75f10d311d3582b69ad1cdbd40c",
  ],
] as const;

describe("built CLI", () => {
  it("is built", () => expect(existsSync(CLI), `${CLI} missing: run npx tsc -p .`).toBe(true));

  it.each(VECTORS)("sign %s %s matches the §2.3 vector byte for byte", (method, path, message, sig) => {
    const out = cli(["sign", "--method", method, "--path", path, "--epoch", "1719905777483"], {
      HFTGATE_SECRET_KEY: SECRET.toUpperCase(),
    });
    expect(out).toBe(`${message}\n${sig}\n`);
  });

  it("sign decodes the wire path (space, plus, slash) like the exchange", () => {
    const out = cli(
      [
        "sign",
        "--method",
        "GET",
        "--path",
        "/v5/order/realtime?category=linear&symbol=BTCUSDT&orderLinkId=grid+7%2Ba%2Fb",
        "--epoch",
        "1719905777483",
      ],
      { HFTGATE_SECRET_KEY: SECRET },
    );
    expect(out.split("\n")[0]).toBe(
      "GET/v5/order/realtime?category=linear&symbol=BTCUSDT&orderLinkId=grid 7+a/b1719905777483",
    );
  });

  it("sign without a key fails with a clear message and never echoes the secret", () => {
    let err: { status?: number; stderr?: string } = {};
    try {
      cli(["sign", "--method", "GET", "--path", "/x", "--epoch", "1"], {
        HFTGATE_SECRET_KEY: "zz" + SECRET.slice(2),
      });
    } catch (e) {
      err = e as typeof err;
    }
    expect(err.status).toBe(2);
    expect(err.stderr).toMatch(/HFTGATE_SECRET_KEY/);
    expect(err.stderr).not.toContain(SECRET.slice(2));
  });

  it("keygen prints a consistent {apiKey, secretKey} pair", () => {
    const out = cli(["keygen"]);
    const pair = JSON.parse(out) as { apiKey: string; secretKey: string };
    expect(Object.keys(pair).sort()).toEqual(["apiKey", "secretKey"]);
    expect(pair.apiKey).toMatch(/^[0-9a-f]{64}$/);
    expect(pair.secretKey).toMatch(/^[0-9a-f]{64}$/);
    expect(loadKeyPair(pair.secretKey).apiKey).toBe(pair.apiKey);
  });
});
