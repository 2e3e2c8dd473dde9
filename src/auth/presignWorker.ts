/**
 * Piscina worker for the pre-signer: signs `prefix + epoch` for a run of consecutive epochs.
 * The seed arrives once through workerData and never leaves this thread (no logging here at all).
 */
import { createPrivateKey, type KeyObject, sign } from "node:crypto";
import { workerData } from "piscina";

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export interface PresignTask {
  prefix: string;
  /** First epoch (ms) to sign. */
  from: number;
  count: number;
}

let key: KeyObject | undefined;

function keyObject(): KeyObject {
  if (key === undefined) {
    const seed = (workerData as { seed: Uint8Array }).seed;
    key = createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(seed)]),
      format: "der",
      type: "pkcs8",
    });
  }
  return key;
}

/** Returns one lower-case hex signature per epoch, in order. */
export default function presign(task: PresignTask): string[] {
  const k = keyObject();
  const out = new Array<string>(task.count);
  for (let i = 0; i < task.count; i++) {
    out[i] = sign(null, Buffer.from(task.prefix + (task.from + i), "utf8"), k).toString("hex");
  }
  return out;
}
