export * from "./engineApi.js";
export { CLOSE, Gateway, type GatewayConfig, type GatewayLogger, startGateway } from "./gateway.js";
export { detectUws, type UwsReport } from "./native.js";
