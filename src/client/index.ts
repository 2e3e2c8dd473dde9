export * from "../protocol/schema.js";
export {
  type ClientEvents,
  type ClientOptions,
  GatewayClient,
  LogonRejectedError,
  type OrderParams,
  type OrderTrace,
  SubscribeRejectedError,
  VenueReadError,
} from "./client.js";
export { type ClientLink, type ClientTransport, type LinkEvents, wsTransport } from "./link.js";
export { type NatsTransportOptions, natsTransport } from "./natsLink.js";
