/**
 * What the venues put on the REST client's fast path (src/rest/fast/): the order requests of Spot,
 * HFT and Futures (create, cancel, amend), and the scanner that reads a plain v5 order answer as text.
 */
import type { FastPathSpec } from "../rest/fast/fastPath.js";
import { scanV5Ack } from "./hft/ackText.js";

export const FAST_REQUESTS: FastPathSpec = {
  endpoints: [
    "spot.createOrder",
    "spot.cancelOrder",
    "hft.createOrder",
    "hft.cancelOrder",
    "hft.amendOrder",
    "futures.createOrder",
    "futures.cancelOrder",
  ],
  scanners: {
    "hft.createOrder": scanV5Ack,
    "hft.cancelOrder": scanV5Ack,
    "hft.amendOrder": scanV5Ack,
  },
};
