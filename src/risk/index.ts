export * from "./codes.js";
export * from "./config.js";
export * from "./riskGate.js";
export * from "./tradingState.js";
export * from "./venueHealth.js";
