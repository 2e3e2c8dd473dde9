/**
 * The preflight checks of the streams: the Spot order-updates Socket.IO subscription with the key,
 * and the HFT socket credential presented to NATS under each auth mapping (the knob to set follows).
 */
import { envName } from "../config/schema.js";
import { connectFields, NATS_AUTH_MODES, type NatsAuthMode } from "../streams/nats/auth.js";
import { parseCredential, type SocketCredential } from "../streams/nats/credentials.js";
import { privateSubjects } from "../streams/nats/hftPrivate.js";
import { errText, HFT_FIX, type Outcome, type PreflightContext, REGISTER, v5Outcome } from "./context.js";
import { retCodeOf } from "./probe.js";
import { tryNatsConnect, trySpotSocket } from "./streams.js";

export async function spotStream(ctx: PreflightContext): Promise<Outcome> {
  const t = await trySpotSocket(ctx.streamUrl, ctx.probe.apiKey, ctx.timeoutMs);
  switch (t.outcome) {
    case "subscribed":
      return { status: "pass", detail: "order-updates subscription with the API key acknowledged" };
    case "silent":
      return {
        status: "warn",
        detail: "connected and subscribed; the venue sent no acknowledgement (it documents none)",
        fix: "after start, watch the spot.orders stream on /health: it must be up",
      };
    case "refused":
      return { status: "fail", detail: `subscription refused: ${t.message}`, fix: REGISTER };
    case "unreachable":
      return {
        status: "fail",
        detail: `Socket.IO connect failed: ${t.message}`,
        fix: "check venue.streamUrl and outbound WebSocket",
      };
  }
}

export async function hftStream(ctx: PreflightContext): Promise<Outcome> {
  const c = ctx.config;
  const url = ctx.natsUrl;
  if (url === undefined)
    return {
      status: "fail",
      detail: "no NATS URL for the HFT streams",
      fix: "set streams.hftNats.url, or streams.hftNats.enabled=false (HFT then polls)",
    };
  let cred: SocketCredential;
  try {
    const r = await ctx.probe.get("hft.socketSignature", [["expires_in_seconds", "300"]]);
    const body = r.body as Record<string, unknown> | undefined;
    const code = retCodeOf(body);
    if (r.status !== 200 || (code !== undefined && code !== 0))
      return {
        status: "fail",
        detail: `GET /dma/api/v1/socket/signature refused (${v5Outcome(r.status, body).why})`,
        fix: HFT_FIX,
      };
    // The credential answer is a bare object [docs]; an envelope is read too.
    cred = parseCredential(code === 0 ? body?.result : body);
  } catch (e) {
    return {
      status: "fail",
      detail: `no socket credential (GET /dma/api/v1/socket/signature): ${errText(e)}`,
      fix: HFT_FIX,
    };
  }
  const accepted: NatsAuthMode[] = [];
  const tried: Record<string, string> = {};
  const configured = c.streams.hftNats.auth;
  const order = [configured, ...NATS_AUTH_MODES.filter((m) => m !== configured)];
  // The account's own subject when its id is configured, else the wildcard the gateway learns it on.
  const subject = privateSubjects(c.streams.hftNats.subAccountId)[0]!;
  for (const mode of order) {
    const t = await tryNatsConnect(url, connectFields(mode, cred), ctx.timeoutMs, subject);
    tried[mode] = t.outcome;
    if (t.outcome === "accepted") accepted.push(mode);
    if (t.outcome === "unreachable")
      return {
        status: "fail",
        detail: `NATS at ${url} not reachable: ${t.message}`,
        fix: "check streams.hftNats.url and outbound WebSocket",
        data: { tried },
      };
  }
  const pub = await tryNatsConnect(url, {}, ctx.timeoutMs);
  const data = { accepted, tried, publicWithoutCredential: pub.outcome === "accepted" };
  const pubNote =
    pub.outcome === "accepted"
      ? "; public subjects open without a credential"
      : "; a connection without a credential was refused (public market data needs one)";
  if (accepted.includes(configured))
    return {
      status: "pass",
      detail: `credential accepted with streams.hftNats.auth=${configured}${pubNote}`,
      data,
    };
  if (accepted.length > 0)
    return {
      status: "fail",
      detail: `the server refused streams.hftNats.auth=${configured} and accepted ${accepted.join(", ")}${pubNote}`,
      fix: `set streams.hftNats.auth=${accepted[0]} (${envName("streams.hftNats.auth")}=${accepted[0]})`,
      data,
    };
  const denied = order.filter((m) => tried[m] === "denied");
  if (denied.length > 0)
    return {
      status: "fail",
      detail: `connected under ${denied.join(", ")}, but the private subject ${subject} was refused: an anonymous connection (the mapping is not the venue's) or a subscription the venue does not allow`,
      fix:
        c.streams.hftNats.subAccountId === ""
          ? "set streams.hftNats.subAccountId to the account's HFT sub-account id (the wildcard may be refused) and run preflight again"
          : "the venue presents the credential another way: set streams.hftNats.enabled=false (HFT polls) and report it",
      data,
    };
  return {
    status: "fail",
    detail: `the server refused the credential under every mapping (${NATS_AUTH_MODES.join(", ")})`,
    fix: "check the key's HFT access; if it has it, the venue presents the credential another way: set streams.hftNats.enabled=false (HFT polls) and report it",
    data,
  };
}
