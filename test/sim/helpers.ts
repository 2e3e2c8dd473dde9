/** Signed requests against the simulator, built with the project's own signing code. */
import { generateKeyPairSync } from "node:crypto";
import { request } from "undici";
import { type KeyPair, loadKeyPair } from "../../src/auth/keys.js";
import { signedMessage } from "../../src/auth/signedMessage.js";
import { nativeSigner } from "../../src/auth/signer.js";

export function newKeys(): KeyPair {
  const { privateKey } = generateKeyPairSync("ed25519");
  const pkcs8 = privateKey.export({ format: "der", type: "pkcs8" });
  return loadKeyPair(Buffer.from(pkcs8.subarray(pkcs8.length - 32)).toString("hex"));
}

export interface CallOpts {
  epoch?: string;
  omitEpoch?: boolean;
  /** Sign something other than what is sent (tamper tests). */
  signMethod?: string;
  signTarget?: string;
  signEpoch?: string;
  apiKey?: string;
  noAuth?: boolean;
}

export interface CallResult {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: test convenience
  json: any;
}

export async function call(
  baseUrl: string,
  keys: KeyPair,
  method: string,
  target: string,
  body?: unknown,
  o: CallOpts = {},
): Promise<CallResult> {
  const epoch = o.epoch ?? String(Date.now());
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (!o.noAuth) {
    const signer = nativeSigner(keys);
    headers["x-auth-apikey"] = o.apiKey ?? keys.apiKey;
    headers["x-auth-signature"] = signer.signHex(
      signedMessage(o.signMethod ?? method, o.signTarget ?? target, o.signEpoch ?? epoch),
    );
    if (!o.omitEpoch) headers["x-auth-epoch"] = epoch;
  }
  const res = await request(baseUrl + target, {
    method: method as "GET",
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text === "" ? undefined : JSON.parse(text) };
}
