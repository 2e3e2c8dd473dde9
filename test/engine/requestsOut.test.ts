/**
 * The count of an order's requests outstanding at the HTTP layer (`requestsOut`, which keeps the
 * resolver away from the order): up from the hand-off to the REST client until its answer or its
 * failure, at every exit (a 401 the clock guard judges included), and never touched by a request
 * refused here before it left. The path already sees the count down when it decides.
 */
import { describe, expect, it } from "vitest";
import { VenueRequest } from "../../src/engine/venueRequest.js";
import type { Order } from "../../src/orders/index.js";
import type { AnswerSink, PreparedRequest } from "../../src/rest/client.js";
import { AuthError, NetworkError, OutcomeUnknownError } from "../../src/rest/errors.js";

interface Sent {
  sink: AnswerSink<Order>;
  o: Order;
  stamp: number;
}

function rig() {
  const sent: Sent[] = [];
  const seen: string[] = [];
  let refuse = false;
  const order = { clientId: "c1", surface: "hft", requestsOut: 0 } as unknown as Order;
  const vr = new VenueRequest(
    {
      // The transport boundary: the test answers or fails each request itself.
      client: {
        sendTo: <C>(_req: PreparedRequest, sink: AnswerSink<C>, o: C, stamp: number) =>
          void sent.push({ sink: sink as unknown as AnswerSink<Order>, o: o as unknown as Order, stamp }),
      },
      limiter: undefined,
      journal: undefined,
      surfaces: { hft: { classOf: () => "order" } } as never,
      run: { dead: false },
    },
    {
      op: "amend",
      spends: "create",
      prepare: () => {
        if (refuse) throw new Error("cannot be built");
        return { endpoint: { method: "POST" }, path: "/v5/order/amend" } as unknown as PreparedRequest;
      },
      sending: (o) => void seen.push(`sending:${o.requestsOut}`),
      answered: (o) => void seen.push(`answered:${o.requestsOut}`),
      failed: (o) => void seen.push(`failed:${o.requestsOut}`),
      refused: (o) => void seen.push(`refused:${o.requestsOut}`),
    },
  );
  return { vr, sent, seen, order, refuseNext: (v: boolean) => (refuse = v) };
}

describe("requests outstanding at the HTTP layer", () => {
  it("counted from the hand-off to the answer or the failure, down before the path decides", () => {
    const { vr, sent, seen, order } = rig();
    vr.send(order);
    expect(order.requestsOut).toBe(1);
    sent[0]!.sink.answered(order, {}, sent[0]!.stamp, "{}");
    expect(order.requestsOut).toBe(0);
    vr.send(order);
    vr.send(order); // two at once (e.g. a same-id resend behind an unanswered create)
    expect(order.requestsOut).toBe(2);
    sent[1]!.sink.failed(
      order,
      new OutcomeUnknownError("headers timeout", undefined, 0, "UND_ERR_HEADERS_TIMEOUT"),
      sent[1]!.stamp,
    );
    expect(order.requestsOut).toBe(1);
    sent[2]!.sink.failed(order, new NetworkError("refused", undefined, "ECONNREFUSED"), sent[2]!.stamp);
    expect(order.requestsOut).toBe(0);
    expect(seen).toEqual(["sending:0", "answered:0", "sending:0", "sending:1", "failed:1", "failed:0"]);
  });

  it("a 401 the clock guard judges is no longer outstanding while the verdict is awaited", async () => {
    const { vr, sent, seen, order } = rig();
    vr.send(order);
    expect(order.requestsOut).toBe(1);
    const err = new AuthError("unauthorized", undefined, 401, 0);
    let judge: (v: boolean) => void = () => {};
    err.clockExplains = new Promise((r) => (judge = r));
    sent[0]!.sink.failed(order, err, sent[0]!.stamp);
    expect(order.requestsOut).toBe(0);
    judge(true);
    await err.clockExplains;
    expect(seen).toEqual(["sending:0", "refused:0"]);
  });

  it("a request refused here before it left changes no count (another one stays outstanding)", () => {
    const { vr, sent, seen, order, refuseNext } = rig();
    vr.send(order);
    refuseNext(true);
    vr.send(order);
    expect(sent).toHaveLength(1);
    expect(order.requestsOut).toBe(1);
    expect(seen).toEqual(["sending:0", "failed:1"]);
  });
});
