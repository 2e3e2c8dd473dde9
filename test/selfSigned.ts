// A self-signed certificate for a test's TLS server, made by openssl: for a name ("localhost") or an
// IP address ("127.0.0.1"), valid one day. Undefined where openssl cannot make one (the callers skip
// or fail, as each test decides).
import { spawnSync } from "node:child_process";
import { isIP } from "node:net";
import { join } from "node:path";

/** Writes `NAME.crt` and `NAME.key` into `dir`; returns their paths. */
export function selfSigned(
  dir: string,
  host: string,
  name = "test",
): { cert: string; key: string } | undefined {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const r = spawnSync("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    key,
    "-out",
    cert,
    "-days",
    "1",
    "-subj",
    `/CN=${host}`,
    "-addext",
    `subjectAltName=${isIP(host) ? "IP" : "DNS"}:${host}`,
  ]);
  return r.status === 0 ? { cert, key } : undefined;
}
