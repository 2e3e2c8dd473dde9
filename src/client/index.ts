export * from "../protocol/schema.js";
export {
  type ClientEvents,
  type ClientOptions,
  GatewayClient,
  LogonRejectedError,
  type OrderParams,
  type OrderTrace,
} from "./client.js";
